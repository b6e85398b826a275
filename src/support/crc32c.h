// CRC-32C (Castagnoli), the checksum the worker wire puts on every frame (src/exec/wire.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mmdiff {

// The CRC-32C of `n` bytes at `data` (RFC 3720's; "123456789" gives 0xE3069283).
uint32_t Crc32c(const uint8_t* data, size_t n);

}  // namespace mmdiff
