// Wire protocol between supervisor and worker: frames of a 4-byte little-endian length followed
// by a MessagePack-encoded JSON value.
#pragma once

#include <nlohmann/json.hpp>

#include "src/support/status.h"

namespace mmdiff {

inline constexpr uint32_t kMaxFrameBytes = 512u << 20;

Status WriteFrame(int fd, const nlohmann::json& message);

enum class ReadState { kOk, kTimeout, kClosed, kError };
struct ReadResult {
  ReadState state;
  nlohmann::json message;
  std::string error;
};
// Waits at most timeout_ms (< 0: forever) for a whole frame.
ReadResult ReadFrame(int fd, int timeout_ms);

}  // namespace mmdiff
