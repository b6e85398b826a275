#include "src/campaign/campaign_profile.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

PathResult Ran(const std::string& path, double seconds, double cpp_compile = -1) {
  PathResult r{path, OutcomeKind::kOk};
  r.seconds = seconds;
  if (cpp_compile >= 0) {
    r.compile.present = true;
    r.compile.phases.cpp_compile = cpp_compile;
    r.compile.phases.run = 0.125;
  }
  return r;
}

TEST(CampaignProfile, SumsPathsAndPartsAndRoundTrips) {
  CampaignProfile a;
  a.AddRuns({Ran("eager", 0.5), Ran("inductor", 2, 1.5)});
  a.AddRuns({Ran("eager", 0.25), Ran("inductor", 1, 0.5)});
  a.run_s = 4;
  a.worker_starts = 1;
  a.worker_start_s = 3;
  a.training_programs = 2;
  a.training_run_s = 1.5;
  a.rejected_programs = 1;
  a.rejected_run_s = 1;
  a.rejected_cpp_compile_s = 0.5;
  EXPECT_EQ(a.CppCompileSeconds(), 2);
  EXPECT_EQ(a.paths["eager"].runs, 2);
  EXPECT_EQ(a.paths["eager"].seconds, 0.75);
  EXPECT_FALSE(a.paths["eager"].compiled);
  EXPECT_TRUE(a.paths["inductor"].compiled);
  EXPECT_EQ(a.paths["inductor"].phases.cpp_compile, 2);
  CampaignProfile b;
  b.judge_s = 1;
  b.AddRuns({Ran("reference", 0.5)});
  b += a;
  EXPECT_EQ(b.judge_s, 1);
  EXPECT_EQ(b.run_s, 4);
  EXPECT_EQ(b.worker_starts, 1);
  EXPECT_EQ(b.training_programs, 2);
  EXPECT_EQ(b.training_run_s, 1.5);
  EXPECT_EQ(b.rejected_programs, 1);
  EXPECT_EQ(b.rejected_run_s, 1);
  EXPECT_EQ(b.rejected_cpp_compile_s, 0.5);
  EXPECT_EQ(b.paths.size(), 3u);
  auto back = CampaignProfile::FromJson(b.ToJson());
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().ToJson(), b.ToJson());
  EXPECT_EQ(back.value().paths["inductor"].phases.run, 0.25);
  EXPECT_EQ(back.value().rejected_cpp_compile_s, 0.5);
  const std::string table = ProfileTable(b, 4, 10);
  EXPECT_NE(table.find("training programs' (2)"), std::string::npos) << table;
  EXPECT_NE(table.find("rejected programs' (1)"), std::string::npos) << table;
  EXPECT_NE(table.find("their C++ compiles (of 2.0 s in all)"), std::string::npos) << table;
  // A summary written before training programs, or before the rejected programs' split, lacks
  // their fields.
  nlohmann::json old = b.ToJson();
  for (const char* f : {"training_programs", "training_run_s", "rejected_programs",
                        "rejected_run_s", "rejected_cpp_compile_s"})
    old.erase(f);
  auto before = CampaignProfile::FromJson(old);
  ASSERT_TRUE(before.ok()) << before.error();
  EXPECT_EQ(before.value().training_programs, 0);
  EXPECT_EQ(before.value().rejected_programs, 0);
  EXPECT_EQ(before.value().rejected_cpp_compile_s, 0);
}

TEST(CampaignProfile, HostileJsonIsAnError) {
  CampaignProfile p;
  p.AddRuns({Ran("inductor", 1, 0.5)});
  nlohmann::json good = p.ToJson();
  auto bad = [&](auto change) {
    nlohmann::json j = good;
    change(j);
    return !CampaignProfile::FromJson(j).ok();
  };
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["judge_s"] = -1; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["judge_s"] = "1"; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j.erase("run_s"); }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["worker_starts"] = 1.5; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["training_programs"] = -1; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["training_run_s"] = "2"; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["rejected_programs"] = -1; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["rejected_cpp_compile_s"] = "x"; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["paths"] = nlohmann::json::array(); }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["paths"]["inductor"]["runs"] = -2; }));
  EXPECT_TRUE(bad([](nlohmann::json& j) { j["paths"]["inductor"]["phases"]["run"] = "x"; }));
  EXPECT_FALSE(bad([](nlohmann::json&) {}));
}

TEST(CampaignProfile, TheTableSplitsTheRunsIntoPathsAndTheirPhases) {
  CampaignProfile p;
  p.AddRuns({Ran("eager", 1), Ran("inductor", 4, 2)});
  PathResult torchscript = Ran("torchscript", 0);  // says whether it compiled, no stages
  torchscript.compile.present = true;
  p.AddRuns({torchscript});
  p.run_s = 6;  // 1 s beyond the paths' own: the wire
  p.generate_s = 1;
  std::string t = ProfileTable(p, 10, 10);
  auto line = [&](const std::string& label) {
    size_t at = t.find(label);
    return at == std::string::npos ? std::string() : t.substr(at, t.find('\n', at) - at);
  };
  // Each row: seconds, share of the 10 s, milliseconds per program (10 programs).
  auto has = [&](const std::string& label, std::vector<std::string> cells) {
    std::string l = line(label);
    for (const auto& c : cells)
      if (l.find(c) == std::string::npos) return false;
    return true;
  };
  EXPECT_TRUE(has("running the paths", {" 6.0 s", " 60.0%", " 600.0 ms"})) << t;
  EXPECT_TRUE(has("inductor (1 runs)", {" 4.0 s", " 40.0%"})) << t;
  EXPECT_TRUE(has("cpp_compile", {" 2.0 s", " 20.0%", " 200.0 ms"})) << t;
  // 4 s in inductor, 2.125 s of them in its phases.
  EXPECT_TRUE(has("other (inputs in and out", {" 1.9 s", " 187.5 ms"})) << t;
  EXPECT_TRUE(has("the wire", {" 1.0 s"})) << t;
  EXPECT_TRUE(has("the rest", {" 3.0 s", " 30.0%"})) << t;
  // Stages are listed once, under inductor, not under a path that reported none.
  EXPECT_EQ(t.find("cpp_compile"), t.rfind("cpp_compile")) << t;
  EXPECT_TRUE(has("torchscript (1 runs)", {" 0.0 s"})) << t;
}

}  // namespace
}  // namespace mmdiff
