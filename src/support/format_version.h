// The version of a file format mmdiff reads (a JSON integer field such as a report's "version" or
// a summary's "generator_version"): one checked reader, so that a hostile value (a float, a string,
// 2^64 - 1, a negative number) is an error naming the field, never a narrowed or wrapped integer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "src/support/status.h"

namespace mmdiff {

// j[field] as an integer in [oldest, newest]. Errors: "<what>: \"<field>\" must be an integer"
// (missing, or not an integer), "<what> format version <value> is not supported (this mmdiff reads
// version N)" or "(... reads versions A to B)".
Result<int64_t> ReadFormatVersion(const nlohmann::json& j, std::string_view what, int64_t oldest,
                                  int64_t newest, std::string_view field = "version");

}  // namespace mmdiff
