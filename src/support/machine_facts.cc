// Machine facts for bug reports.
#include "src/support/machine_facts.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace mmdiff {

const std::vector<std::string>& CpuFlagsThatMatter() {
  static const std::vector<std::string> flags = {
      "avx2",        "fma",         "f16c",     "avx512f",  "avx512bw", "avx512vl",
      "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"};
  return flags;
}

namespace {

// The value of the first "key: value" line of /proc/cpuinfo whose key is `key`; "" when none.
std::string CpuInfoField(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return "";
}

std::string Slurp(const char* path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

MachineFacts ReadMachineFacts() {
  MachineFacts m;
  std::istringstream release(Slurp("/etc/os-release"));
  for (std::string line; std::getline(release, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      m.os = line.substr(12);
      m.os.erase(std::remove(m.os.begin(), m.os.end(), '"'), m.os.end());
    }
  if (m.os.empty()) m.os = "?";
  const std::string cpuinfo = Slurp("/proc/cpuinfo");
  m.cpu_model = CpuInfoField(cpuinfo, "model name");
  if (m.cpu_model.empty()) m.cpu_model = "?";
  std::istringstream words(CpuInfoField(cpuinfo, "flags"));
  std::set<std::string> have;
  for (std::string w; words >> w;) have.insert(w);
  for (const auto& f : CpuFlagsThatMatter())
    (have.count(f) ? m.flags_present : m.flags_absent).push_back(f);
  return m;
}

std::string CpuLine(const MachineFacts& m) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string line = m.cpu_model;
  if (!m.flags_present.empty()) line += "; " + join(m.flags_present);
  if (!m.flags_absent.empty()) line += "; without " + join(m.flags_absent);
  return line;
}

}  // namespace mmdiff
