// Limits on untrusted JSON, checked before it is parsed, so that rejecting a hostile file is cheap
// and no later recursive walk meets a nesting it cannot bear.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "src/support/status.h"

namespace mmdiff {

// mmdiff's own files are far below these (a report is tens of KB, a summary a few hundred).
inline constexpr size_t kMaxJsonBytes = size_t{16} << 20;  // 16 MiB
inline constexpr int kMaxJsonDepth = 64;                   // nested arrays and objects
inline constexpr size_t kMaxJsonValues = size_t{1} << 20;  // values of any kind, keys not counted

// Whether `text` is within the limits, by one pass over its bytes (no allocation): its size, its
// nesting and its number of values. The error says which limit it passes.
Status CheckJsonLimits(std::string_view text);

// CheckJsonLimits, then the parse. Malformed JSON, and a number beyond double's range (1e400), are
// errors.
Result<nlohmann::json> ParseJsonBounded(std::string_view text);

}  // namespace mmdiff
