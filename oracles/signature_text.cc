// Reading a root-cause signature's text.
#include "oracles/signature_text.h"

#include <algorithm>

namespace mmdiff {

std::string RootCausePrefix(const std::string& signature) {
  size_t at = signature.find("|op");
  return at == std::string::npos ? signature : signature.substr(0, at);
}

std::vector<std::string> SignatureFields(const std::string& signature) {
  std::vector<std::string> out;
  for (size_t at = 0;;) {
    size_t bar = signature.find('|', at);
    out.push_back(signature.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) return out;
    at = bar + 1;
  }
}

std::string SignatureField(const std::string& signature, const std::string& key) {
  for (const auto& f : SignatureFields(signature))
    if (f.rfind(key, 0) == 0) return f.substr(key.size());
  return "";
}

bool SameCauseAtEagersNode(const std::string& original, const std::string& candidate) {
  auto starts = [](const std::string& s, const char* with) { return s.rfind(with, 0) == 0; };
  std::vector<std::string> a = SignatureFields(original), b = SignatureFields(candidate);
  if (a.size() != b.size() || std::find(a.begin(), a.end(), "eager_raises_at_op") == a.end())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    bool same = a[i] == b[i] || (a[i] == "eager_raises_at_op" && starts(b[i], "rule=")) ||
                (starts(a[i], "devices=") && starts(b[i], "devices="));
    if (!same) return false;
  }
  return true;
}

}  // namespace mmdiff
