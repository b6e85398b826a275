// Wire protocol between supervisor and worker: frames of a 4-byte little-endian length followed
// by a MessagePack-encoded JSON value.
#pragma once

#include <nlohmann/json.hpp>

#include "src/support/status.h"

namespace mmdiff {

inline constexpr uint32_t kMaxFrameBytes = 512u << 20;
inline constexpr int kMaxFrameDepth = 64;  // nested arrays and maps in one message

Status WriteFrame(int fd, const nlohmann::json& message);

enum class ReadState { kOk, kTimeout, kClosed, kError };
struct ReadResult {
  ReadState state;
  nlohmann::json message;
  std::string error;
};
// Waits at most timeout_ms (< 0: forever) for a whole frame. A frame is read as it arrives (memory
// follows the bytes sent, not the length claimed); its message must be a map nested at most
// kMaxFrameDepth deep, and its strings are made valid UTF-8 (ValidUtf8). Anything else is kError.
ReadResult ReadFrame(int fd, int timeout_ms);

}  // namespace mmdiff
