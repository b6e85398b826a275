// FNV-1a.
#include "src/support/hash.h"

#include <cstdio>

namespace mmdiff {

uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string HashHex(std::string_view data) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(Fnv1a64(data)));
  return buf;
}

bool IsHashHex(std::string_view s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace mmdiff
