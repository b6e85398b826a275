// Wire protocol between supervisor and worker: frames of a 4-byte little-endian body length, the
// body's 4-byte little-endian CRC-32C, then the body, a MessagePack-encoded JSON value. Compiled
// code runs inside the worker and can scribble over its memory: a frame checks itself, and one
// that does not is a worker fault, never a value.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

inline constexpr uint32_t kMaxFrameBytes = 512u << 20;
inline constexpr int kMaxFrameDepth = 64;       // nested arrays and maps in one message
inline constexpr size_t kFrameHeaderBytes = 8;  // length, then checksum

// The header of a frame with `body`: its length and CRC-32C, little-endian (no limit checked).
std::array<uint8_t, kFrameHeaderBytes> FrameHeader(const std::vector<uint8_t>& body);
// The whole frame: the header, then the body.
std::vector<uint8_t> EncodeFrame(const std::vector<uint8_t>& body);
Status WriteFrame(int fd, const nlohmann::json& message);

// kClosed: the pipe ended between frames. kCorrupt: the bytes are no frame (a length beyond the
// limit, a checksum that does not match, a frame the pipe's end cut short, a body that is not a
// MessagePack map within kMaxFrameDepth). kError: reading the pipe failed (errno).
enum class ReadState { kOk, kTimeout, kClosed, kCorrupt, kError };
struct ReadResult {
  ReadState state;
  nlohmann::json message;
  std::string error;
};
// Waits at most timeout_ms (< 0: forever) for a whole frame. A frame is read as it arrives (memory
// follows the bytes sent, not the length claimed); its message must be a map nested at most
// kMaxFrameDepth deep, and its strings are made valid UTF-8 (ValidUtf8). Anything else is
// kCorrupt, with `error` saying what was wrong.
ReadResult ReadFrame(int fd, int timeout_ms);

}  // namespace mmdiff
