// Finding the torch venvs scripts/setup made, and having it make one.
#include "src/releases/release_venvs.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "src/support/subprocess.h"

namespace mmdiff {

namespace fs = std::filesystem;

std::string VenvCacheDir() {
  if (const char* c = std::getenv("MMDIFF_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mmdiff";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.cache/mmdiff";
}

int CompareTorchVersions(const std::string& a, const std::string& b) {
  auto version = [](const std::string& v) {
    auto parsed = ParseTorchVersion(v);
    return parsed.ok() ? parsed.value() : TorchVersion{};
  };
  auto cmp = version(a) <=> version(b);
  return cmp < 0 ? -1 : cmp == 0 ? 0 : 1;
}

std::string PythonMajorMinor(const std::string& version) {
  size_t first = version.find('.');
  if (first == std::string::npos) return version;
  size_t second = version.find('.', first + 1);
  return version.substr(0, second);
}

namespace {
std::string VenvDir(const std::string& cache, const std::string& torch,
                    const std::string& python_mm) {
  return cache + "/venv-torch-" + torch + "-py" + python_mm;
}
bool Complete(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir + "/.mmdiff-complete", ec) && fs::exists(dir + "/bin/python", ec);
}
}  // namespace

Result<ReleaseVenv> FindReleaseVenv(const std::string& cache, const std::string& torch,
                                    const std::string& python_mm) {
  if (!IsReleaseName(torch))
    return Status::Error("'" + torch + "' is not a torch release such as 2.11.0");
  std::string dir = VenvDir(cache, torch, python_mm);
  if (!Complete(dir))
    return Status::Error("torch " + torch + " is not set up here (no complete " + dir +
                         "): `MMDIFF_TORCH=" + torch +
                         " scripts/setup --venv-only` creates it, or add --setup");
  return ReleaseVenv{torch, dir + "/bin/python"};
}

std::vector<ReleaseVenv> FindReleaseVenvs(const std::string& cache, const std::string& python_mm) {
  std::vector<ReleaseVenv> out;
  std::error_code ec;
  const std::string prefix = "venv-torch-", suffix = "-py" + python_mm;
  for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string torch = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (!IsReleaseName(torch) || !Complete(it->path().string())) continue;
    out.push_back({torch, it->path().string() + "/bin/python"});
  }
  std::sort(out.begin(), out.end(), [](const ReleaseVenv& a, const ReleaseVenv& b) {
    return CompareTorchVersions(a.torch, b.torch) > 0;
  });
  return out;
}

Status SetUpReleaseVenv(const std::string& setup_script, const std::string& torch) {
  std::error_code ec;
  if (!fs::exists(setup_script, ec))
    return Status::Error("no " + setup_script + " to set up torch " + torch);
  spdlog::info("setting up torch {} ({} --venv-only)", torch, setup_script);
  ProcessOptions o;
  o.argv = {"bash", setup_script, "--venv-only"};
  o.env = {"MMDIFF_TORCH=" + torch};
  // o.output "": its output goes to our stderr, a table on stdout stays clean.
  ProcessResult r = RunProcess(o);
  if (!r.started) return Status::Error("cannot run " + setup_script + ": " + r.error);
  if (r.exit_code != 0)
    return Status::Error(setup_script + " failed for torch " + torch + " (see above)");
  return Status::Ok();
}

Result<std::vector<ReleaseVenv>> ResolveReleaseVenvs(const std::string& cache,
                                                     const std::string& python_mm,
                                                     const std::vector<std::string>& wanted,
                                                     const std::string& setup_script) {
  if (wanted.empty()) {
    auto all = FindReleaseVenvs(cache, python_mm);
    if (all.empty())
      return Status::Error("no torch venv is set up in " + cache + " for Python " + python_mm +
                           ": `MMDIFF_TORCH=2.11.0 scripts/setup "
                           "--venv-only` creates one, or give --torch with --setup");
    return all;
  }
  std::vector<ReleaseVenv> out;
  for (const auto& v : wanted) {
    auto venv = FindReleaseVenv(cache, v, python_mm);
    if (!venv.ok() && !setup_script.empty() && IsReleaseName(v)) {
      if (Status s = SetUpReleaseVenv(setup_script, v); !s.ok()) return s;
      venv = FindReleaseVenv(cache, v, python_mm);
    }
    if (!venv.ok()) return venv.status();
    out.push_back(venv.value());
  }
  std::sort(out.begin(), out.end(), [](const ReleaseVenv& x, const ReleaseVenv& y) {
    return CompareTorchVersions(x.torch, y.torch) > 0;
  });
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const ReleaseVenv& x, const ReleaseVenv& y) { return x.torch == y.torch; }),
      out.end());
  return out;
}

}  // namespace mmdiff
