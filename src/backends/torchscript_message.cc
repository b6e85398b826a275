// TorchScript error messages.
#include "src/backends/torchscript_message.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace mmdiff {

namespace {
std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "RuntimeError: x" -> "x"; "" when the line does not start with a Python exception name.
std::string AfterErrorName(const std::string& line) {
  size_t colon = line.find(": ");
  if (colon == std::string::npos || colon == 0) return "";
  std::string name = line.substr(0, colon);
  for (char c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return "";
  bool is_error = name.size() >= 5 &&
                  (name.compare(name.size() - 5, 5, "Error") == 0 ||
                   (name.size() >= 9 && name.compare(name.size() - 9, 9, "Exception") == 0));
  return is_error ? line.substr(colon + 2) : "";
}
}  // namespace

std::string TorchScriptErrorLine(const std::string& what) {
  std::vector<std::string> lines;
  std::stringstream ss(what);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  if (what.find("failed in the TorchScript interpreter") != std::string::npos)
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
      if (std::string m = AfterErrorName(Trim(*it)); !m.empty()) return Trim(m);
  for (const auto& line : lines)
    if (std::string t = Trim(line); !t.empty()) return t;
  return "";
}

}  // namespace mmdiff
