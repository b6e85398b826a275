// Limits on untrusted JSON.
#include "src/support/json_limits.h"

#include <string>

namespace mmdiff {

Status CheckJsonLimits(std::string_view text) {
  if (text.size() > kMaxJsonBytes)
    return Status::Error("JSON of " + std::to_string(text.size()) + " bytes is larger than the " +
                         std::to_string(kMaxJsonBytes >> 20) + " MiB mmdiff reads");
  int depth = 0;
  size_t values = 0;
  bool in_string = false, escaped = false, in_scalar = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    // A value starts at a bracket, a quote or the first byte of a bare scalar. A key is a string
    // too: counted, which errs on the side of the limit.
    bool scalar_byte = c != ',' && c != ':' && c != ' ' && c != '\n' && c != '\r' && c != '\t' &&
                       c != '[' && c != ']' && c != '{' && c != '}' && c != '"';
    if (scalar_byte && !in_scalar) ++values;
    in_scalar = scalar_byte;
    if (c == '"') {
      in_string = true;
      ++values;
    } else if (c == '[' || c == '{') {
      ++values;
      if (++depth > kMaxJsonDepth)
        return Status::Error("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
    if (values > kMaxJsonValues)
      return Status::Error("JSON with more than " + std::to_string(kMaxJsonValues) + " values");
  }
  return Status::Ok();
}

Result<nlohmann::json> ParseJsonBounded(std::string_view text) {
  if (Status s = CheckJsonLimits(text); !s.ok()) return s;
  // nlohmann's parser rejects a number beyond double's range (1e400) rather than reading infinity.
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("malformed JSON");
  return j;
}

}  // namespace mmdiff
