// Test helpers for the triage module: report and campaign files as `mmdiff fuzz` writes them.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ir/program_json.h"

namespace mmdiff::triage::testing {

// A one-node program: op(args...) over inputs named a, b, c.
inline Program OneOp(OpKind op, const std::vector<std::pair<Shape, DType>>& inputs) {
  Program p;
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(std::string(1, static_cast<char>('a' + i)));
    p.inputs.push_back({names.back(), inputs[i].first, inputs[i].second});
  }
  p.nodes = {{"v0", op, names}};
  p.outputs = {"v0"};
  return p;
}

struct TestDivergence {
  std::string kind = "error_behaviour";
  std::string blamed = "inductor";
  std::string classification;                 // "" = none
  double got = 0, expected = 0, allowed = 0;  // kind "value" only
};

inline nlohmann::json Report(const std::string& hash,
                             const std::vector<TestDivergence>& divergences,
                             const Program& program = OneOp(OpKind::kMm,
                                                            {{{4, 8}, DType::kFloat16},
                                                             {{8, 2}, DType::kFloat32}})) {
  nlohmann::json ds = nlohmann::json::array();
  for (const auto& d : divergences) {
    nlohmann::json j = {
        {"kind", d.kind}, {"paths", {"eager", d.blamed}}, {"blamed", d.blamed}, {"detail", "x"}};
    if (!d.classification.empty()) j["classification"] = d.classification;
    if (d.kind == "value")
      j["worst"] = {{"output", 0},
                    {"element", 0},
                    {"got", d.got},
                    {"expected", d.expected},
                    {"allowed_error", d.allowed}};
    ds.push_back(j);
  }
  std::string kind = divergences.empty() ? "none" : divergences[0].kind;
  return {{"format", "mmdiff.report"},
          {"version", 1},
          {"headline", kind + " [blamed: inductor]: headline of " + hash},
          {"summary", program.Summary()},
          {"bucket",
           {{"hash", hash},
            {"signature", kind + "|path=" + (divergences.empty() ? "?" : divergences[0].blamed) +
                              "|sig-" + hash}}},
          {"program", ProgramToJson(program)},
          {"inputs", {{"kind", "grid16"}, {"seed", 7}}},
          {"verdict", {{"result", "diverge"}, {"divergences", ds}}},
          {"repro", "repro.py"}};
}

inline void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

struct CampaignBucket {
  nlohmann::json report;  // null: the summary lists it but the report is missing
  int64_t count = 1;
  double first_found_s = 0;
  uint64_t first_seed = 0;
};

// DIR/summary.json and DIR/findings/<hash>/{report.json, repro.py}.
inline void WriteCampaign(const std::filesystem::path& dir,
                          const std::vector<std::pair<std::string, CampaignBucket>>& buckets,
                          int64_t cases = 100) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [hash, b] : buckets) {
    entries.push_back({{"hash", hash},
                       {"signature", "sig-" + hash},
                       {"headline", "value [blamed: inductor, filable]: h"},
                       {"finding", "findings/" + hash},
                       {"count", b.count},
                       {"first_seed", b.first_seed},
                       {"first_found_s", b.first_found_s}});
    if (b.report.is_null()) continue;
    WriteText(dir / "findings" / hash / "report.json", b.report.dump(2));
    WriteText(dir / "findings" / hash / "repro.py", "print('repro')\n");
  }
  WriteText(dir / "summary.json", nlohmann::json({{"format", "mmdiff.fuzz-summary"},
                                                  {"version", 1},
                                                  {"cases", cases},
                                                  {"elapsed_s", 30.0},
                                                  {"buckets", entries}})
                                      .dump(2));
}

// A fresh folder for one test.
inline std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mmdiff-triage-test-" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mmdiff::triage::testing
