// Frame I/O over pipes with poll() deadlines.
#include "src/exec/wire.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace mmdiff {

namespace {

bool WriteAll(int fd, const uint8_t* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads exactly n bytes before the deadline.
ReadState ReadAll(int fd, uint8_t* data, size_t n, std::chrono::steady_clock::time_point deadline,
                  bool has_deadline, std::string& error) {
  while (n > 0) {
    int wait_ms = -1;
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return ReadState::kTimeout;
      wait_ms = static_cast<int>(left.count());
    }
    pollfd p{fd, POLLIN, 0};
    int pr = poll(&p, 1, wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) {
      error = std::strerror(errno);
      return ReadState::kError;
    }
    if (pr == 0) return ReadState::kTimeout;
    ssize_t r = read(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return ReadState::kClosed;
    if (r < 0) {
      error = std::strerror(errno);
      return ReadState::kError;
    }
    data += r;
    n -= static_cast<size_t>(r);
  }
  return ReadState::kOk;
}

}  // namespace

Status WriteFrame(int fd, const nlohmann::json& message) {
  std::vector<uint8_t> body = nlohmann::json::to_msgpack(message);
  if (body.size() > kMaxFrameBytes) return Status::Error("frame too large");
  uint32_t n = static_cast<uint32_t>(body.size());
  uint8_t header[4] = {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n >> 16),
                       static_cast<uint8_t>(n >> 24)};
  if (!WriteAll(fd, header, 4) || !WriteAll(fd, body.data(), body.size()))
    return Status::Error(std::string("write to pipe failed: ") + std::strerror(errno));
  return Status::Ok();
}

ReadResult ReadFrame(int fd, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool has_deadline = timeout_ms >= 0;
  ReadResult out{ReadState::kOk, nullptr, ""};
  uint8_t header[4];
  out.state = ReadAll(fd, header, 4, deadline, has_deadline, out.error);
  if (out.state != ReadState::kOk) return out;
  uint32_t n = header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (n > kMaxFrameBytes) {
    out.state = ReadState::kError;
    out.error = "frame length " + std::to_string(n) + " exceeds the limit";
    return out;
  }
  std::vector<uint8_t> body(n);
  out.state = ReadAll(fd, body.data(), n, deadline, has_deadline, out.error);
  if (out.state != ReadState::kOk) return out;
  out.message = nlohmann::json::from_msgpack(body, /*strict=*/true, /*allow_exceptions=*/false);
  if (out.message.is_discarded()) {
    out.state = ReadState::kError;
    out.error = "malformed frame";
  }
  return out;
}

}  // namespace mmdiff
