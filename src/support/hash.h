// Stable content hashes (FNV-1a 64) for naming programs, findings and buckets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mmdiff {

uint64_t Fnv1a64(std::string_view data);
// 16 lowercase hex digits of Fnv1a64(data).
std::string HashHex(std::string_view data);
// Whether `s` has HashHex's shape (a bucket's or a finding folder's name read from a file).
bool IsHashHex(std::string_view s);

}  // namespace mmdiff
