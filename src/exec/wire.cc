// Frame I/O over pipes with poll() deadlines.
#include "src/exec/wire.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "src/support/crc32c.h"
#include "src/support/utf8.h"

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

void PutLe32(uint8_t* at, uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t GetLe32(const uint8_t* at) {
  return at[0] | (at[1] << 8) | (at[2] << 16) | (static_cast<uint32_t>(at[3]) << 24);
}

// Reads exactly n bytes before the deadline; `got` counts the bytes read.
ReadState ReadAll(int fd, uint8_t* data, size_t n, std::chrono::steady_clock::time_point deadline,
                  bool has_deadline, std::string& error, size_t& got) {
  while (n > 0) {
    int wait_ms = -1;
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
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
    got += static_cast<size_t>(r);
    n -= static_cast<size_t>(r);
  }
  return ReadState::kOk;
}

// Builds the message as nlohmann's DOM parser does, refusing nesting beyond kMaxFrameDepth before
// descending (the MessagePack reader recurses once per level: a frame of nested one-byte arrays
// would otherwise exhaust the stack) and making every string and key valid UTF-8.
class BoundedDom {
 public:
  explicit BoundedDom(nlohmann::json& out) : dom_(out, /*allow_exceptions=*/false) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(nlohmann::json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(nlohmann::json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(nlohmann::json::number_float_t v, const std::string& s) {
    return dom_.number_float(v, s);
  }
  bool string(std::string& v) {
    std::string valid = ValidUtf8(v);
    return dom_.string(valid);
  }
  bool binary(nlohmann::json::binary_t& v) { return dom_.binary(v); }
  bool key(std::string& v) {
    std::string valid = ValidUtf8(v);
    return dom_.key(valid);
  }
  bool start_object(std::size_t n) { return ++depth_ <= kMaxFrameDepth && dom_.start_object(n); }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return ++depth_ <= kMaxFrameDepth && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }
  bool too_deep() const { return depth_ > kMaxFrameDepth; }

 private:
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
  int depth_ = 0;
};

}  // namespace

std::array<uint8_t, kFrameHeaderBytes> FrameHeader(const std::vector<uint8_t>& body) {
  std::array<uint8_t, kFrameHeaderBytes> header{};
  PutLe32(header.data(), static_cast<uint32_t>(body.size()));
  PutLe32(header.data() + 4, Crc32c(body.data(), body.size()));
  return header;
}

std::vector<uint8_t> EncodeFrame(const std::vector<uint8_t>& body) {
  std::vector<uint8_t> frame(kFrameHeaderBytes + body.size());
  const auto header = FrameHeader(body);
  std::copy(header.begin(), header.end(), frame.begin());
  std::copy(body.begin(), body.end(), frame.begin() + kFrameHeaderBytes);
  return frame;
}

Status WriteFrame(int fd, const nlohmann::json& message) {
  std::vector<uint8_t> body = nlohmann::json::to_msgpack(message);
  if (body.size() > kMaxFrameBytes) return Status::Error("frame too large");
  // The header, then the body where it is: no copy of a large result.
  const auto header = FrameHeader(body);
  if (!WriteAll(fd, header.data(), header.size()) || !WriteAll(fd, body.data(), body.size()))
    return Status::Error(std::string("write to pipe failed: ") + std::strerror(errno));
  return Status::Ok();
}

ReadResult ReadFrame(int fd, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool has_deadline = timeout_ms >= 0;
  ReadResult out{ReadState::kOk, nullptr, ""};
  auto corrupt = [&out](std::string why) {
    out.state = ReadState::kCorrupt;
    out.error = std::move(why);
    return out;
  };
  uint8_t header[kFrameHeaderBytes];
  size_t got = 0;
  out.state = ReadAll(fd, header, kFrameHeaderBytes, deadline, has_deadline, out.error, got);
  if (out.state == ReadState::kClosed && got > 0)
    return corrupt("the pipe ended inside a frame's header (" + std::to_string(got) + " of " +
                   std::to_string(kFrameHeaderBytes) + " bytes)");
  if (out.state != ReadState::kOk) return out;
  const uint32_t n = GetLe32(header), checksum = GetLe32(header + 4);
  if (n > kMaxFrameBytes)
    return corrupt("frame length " + std::to_string(n) + " exceeds the limit");
  // The body grows as it arrives: a header that claims 512 MiB and sends nothing costs nothing.
  std::vector<uint8_t> body;
  constexpr size_t kChunk = size_t{1} << 20;
  got = 0;
  while (body.size() < n) {
    size_t take = std::min<size_t>(kChunk, n - body.size());
    body.resize(body.size() + take);
    out.state =
        ReadAll(fd, body.data() + body.size() - take, take, deadline, has_deadline, out.error, got);
    if (out.state == ReadState::kClosed)
      return corrupt("the pipe ended inside a frame (" + std::to_string(got) + " of " +
                     std::to_string(n) + " bytes)");
    if (out.state != ReadState::kOk) return out;
  }
  if (Crc32c(body.data(), body.size()) != checksum)
    return corrupt("frame checksum mismatch (" + std::to_string(n) + " bytes)");
  nlohmann::json message;
  BoundedDom dom(message);
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(body, &dom, nlohmann::json::input_format_t::msgpack,
                                       /*strict=*/true);
  } catch (const nlohmann::json::exception&) {
    parsed = false;
  }
  if (!parsed || !message.is_object()) {
    out.state = ReadState::kCorrupt;
    out.error = dom.too_deep()
                    ? "frame nested deeper than " + std::to_string(kMaxFrameDepth) + " levels"
                : parsed ? "malformed frame: not an object"
                         : "malformed frame";
    return out;
  }
  out.message = std::move(message);
  return out;
}

}  // namespace mmdiff
