#include "src/support/format_version.h"

#include <algorithm>
#include <string>

namespace mmdiff {

Result<int64_t> ReadFormatVersion(const nlohmann::json& j, std::string_view what, int64_t oldest,
                                  int64_t newest, std::string_view field) {
  const std::string key(field);
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer())
    return Status::Error(std::string(what) + ": \"" + key + "\" must be an integer");
  const nlohmann::json& v = j[key];
  // Compared as JSON numbers, not narrowed first: 2^64 - 1 is not -1, 2^32 + 1 is not 1.
  const bool in_range =
      v.is_number_unsigned()
          ? newest >= 0 && v.get<uint64_t>() <= static_cast<uint64_t>(newest) &&
                v.get<uint64_t>() >= static_cast<uint64_t>(std::max<int64_t>(0, oldest))
          : v.get<int64_t>() >= oldest && v.get<int64_t>() <= newest;
  if (!in_range)
    return Status::Error(std::string(what) + " format version " + v.dump() +
                         " is not supported (this mmdiff reads " +
                         (oldest == newest ? "version " + std::to_string(newest)
                                           : "versions " + std::to_string(oldest) + " to " +
                                                 std::to_string(newest)) +
                         ")");
  return v.get<int64_t>();
}

}  // namespace mmdiff
