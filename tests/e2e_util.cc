// End-to-end helpers.
#include "tests/e2e_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "mmdiff/build_info.h"
#include "src/releases/release_venvs.h"
#include "src/report/report.h"
#include "src/support/files.h"

namespace mmdiff::e2e {

std::string SharedInductorCache() {
  static const std::string dir = [] {
    const std::string cache =
        VenvCacheDir() + "/e2e-inductor-cache-torch-" + std::string(build_info::kTorchVersion);
    setenv("TORCHINDUCTOR_CACHE_DIR", cache.c_str(), 0);
    return std::string(std::getenv("TORCHINDUCTOR_CACHE_DIR"));
  }();
  return dir;
}

CommandResult RunShell(const std::string& command) {
  SharedInductorCache();  // children inherit it
  CommandResult r{-1, ""};
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.output.append(buf.data(), n);
  int status = pclose(f);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

nlohmann::json CampaignSummary(const std::string& dir) {
  auto s = ReadFile(dir + "/summary.json");
  if (!s.ok()) return nullptr;
  return nlohmann::json::parse(s.value(), nullptr, false);
}

std::map<std::string, CampaignBucket> CampaignBuckets(const nlohmann::json& summary) {
  std::map<std::string, CampaignBucket> out;
  for (const auto& b : summary["buckets"])
    out[b["hash"]] = {b["count"], b["first_seed"], b["example_seeds"]};
  return out;
}

std::map<std::string, CampaignBucket> MergedShardBuckets(const std::vector<std::string>& dirs,
                                                         int64_t* cases) {
  std::map<std::string, CampaignBucket> merged;
  *cases = 0;
  for (const auto& dir : dirs) {
    nlohmann::json s = CampaignSummary(dir);
    if (!s.is_object()) {
      ADD_FAILURE() << "no summary.json in " << dir;
      continue;
    }
    *cases += s["cases"].get<int64_t>();
    for (const auto& [hash, b] : CampaignBuckets(s)) {
      auto [it, fresh] = merged.try_emplace(hash, b);
      if (fresh) continue;
      std::vector<uint64_t> ex = it->second.examples;
      ex.insert(ex.end(), b.examples.begin(), b.examples.end());
      std::sort(ex.begin(), ex.end());
      ex.resize(std::min<size_t>(ex.size(), 5));
      it->second = {it->second.count + b.count, std::min(it->second.first_seed, b.first_seed), ex};
    }
  }
  return merged;
}

CommandResult RunMmdiff(const std::string& args) {
  if (args.rfind("fuzz ", 0) == 0 && args.find("--resume") == std::string::npos &&
      args.find("--inductor-cache") == std::string::npos)
    return RunMmdiffOwnCache("fuzz --inductor-cache " + SharedInductorCache() + args.substr(4));
  return RunMmdiffOwnCache(args);
}

CommandResult RunMmdiffOwnCache(const std::string& args) {
  return RunShell(std::string(MMDIFF_BUILD_DIR) + "/mmdiff " + args);
}

namespace {
std::filesystem::path ProcessScratchRoot() {
  return std::filesystem::temp_directory_path() / ("mmdiff-e2e-" + std::to_string(getpid()));
}

// At exit, this test process's scratch folders go when every test passed; after a failure they
// stay for reading, and the process says where.
void RemoveScratchUnlessFailed() {
  const auto* unit = ::testing::UnitTest::GetInstance();
  std::error_code ec;
  if (unit->Passed()) {
    std::filesystem::remove_all(ProcessScratchRoot(), ec);
  } else {
    std::fprintf(stderr, "e2e: scratch folders kept for reading: %s\n",
                 ProcessScratchRoot().c_str());
  }
}
}  // namespace

std::string ScratchDir(const std::string& name) {
  static const bool cleanup_registered = std::atexit(RemoveScratchUnlessFailed) == 0;
  (void)cleanup_registered;
  auto dir = ProcessScratchRoot() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string ReplayStatusOf(const std::string& output, const std::string& entry) {
  size_t at = output.find("\n" + entry + " ");
  if (at == std::string::npos) return "(no row)";
  std::string line = output.substr(at + 1, output.find('\n', at + 1) - at - 1);
  return line.substr(line.find_last_of(' ') + 1);
}

std::string WorkerBinary() { return std::string(MMDIFF_BUILD_DIR) + "/mmdiff-worker"; }

SupervisorOptions WorkerOptions(const std::string& log) {
  SupervisorOptions o;
  o.worker_binary = WorkerBinary();
  o.log_path = log;
  return o;
}
std::string VenvPython() { return build_info::kVenvPython; }

Program SeedBugProgram() {
  Program p;
  p.inputs = {{"a", {2, 4, 8, 8}, DType::kFloat16}, {"b", {2, 4, 8, 64}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

Program LegalMm() {
  Program p;
  p.inputs = {{"a", {5, 17}, DType::kFloat32},
              {"b", {17, 3}, DType::kFloat32, Device::kCpu, Layout::kTransposed}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

void ExpectCompiledPathMatchesEager(const std::vector<PathResult>& res, const Program& p,
                                    const InputRecipe& r, bool first_input) {
  ASSERT_EQ(res.size(), 3u);
  ASSERT_EQ(res[1].kind, OutcomeKind::kOk) << res[1].message;
  ASSERT_EQ(res[2].kind, OutcomeKind::kOk)
      << res[2].error_class << ": " << res[2].message << " (stage " << res[2].stage << ")";
  ASSERT_EQ(res[2].outputs.size(), 1u);
  EXPECT_EQ(res[2].outputs[0].dtype, DType::kFloat32);
  EXPECT_EQ(res[2].outputs[0].shape, (Shape{5, 3}));
  EXPECT_EQ(res[2].outputs[0].data, res[1].outputs[0].data) << "recipe seed " << r.seed;
  EXPECT_FALSE(JudgeCase(p, r, res).verdict.diverges());
  EXPECT_TRUE(res[2].compile.present);
  EXPECT_EQ(res[2].compile.compiled, first_input);
  EXPECT_EQ(res[2].compile.reused, !first_input);
}

nlohmann::json ReadJson(const std::string& path) {
  auto s = ReadFile(path);
  return s.ok() ? nlohmann::json::parse(s.value(), nullptr, false) : nlohmann::json();
}

}  // namespace mmdiff::e2e
