// Making text valid UTF-8.
#include "src/support/utf8.h"

#include <cstdint>

namespace mmdiff {

namespace {

// The length of the well-formed sequence at text[i] (RFC 3629, Unicode's table 3-7), 0 if none.
size_t SequenceAt(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  uint8_t b = byte(i);
  if (b < 0x80) return 1;
  size_t n = b >= 0xC2 && b <= 0xDF   ? 2
             : b >= 0xE0 && b <= 0xEF ? 3
             : b >= 0xF0 && b <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || i + n > text.size()) return 0;
  // The second byte's range depends on the first: it rules out overlong forms, surrogates and
  // code points beyond U+10FFFF.
  uint8_t lo = 0x80, hi = 0xBF, second = byte(i + 1);
  if (b == 0xE0) lo = 0xA0;
  if (b == 0xED) hi = 0x9F;
  if (b == 0xF0) lo = 0x90;
  if (b == 0xF4) hi = 0x8F;
  if (second < lo || second > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = SequenceAt(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string TerminalLine(std::string_view text) {
  std::string valid = ValidUtf8(text), out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    auto b = static_cast<uint8_t>(valid[i]);
    bool c1 = b == 0xC2 && i + 1 < valid.size() && static_cast<uint8_t>(valid[i + 1]) >= 0x80 &&
              static_cast<uint8_t>(valid[i + 1]) <= 0x9F;
    if (b < 0x20 || b == 0x7F || c1) {
      out += '?';
      i += c1 ? 1 : 0;
    } else {
      out += valid[i];
    }
  }
  return out;
}

}  // namespace mmdiff
