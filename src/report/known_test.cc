// Tests for the known-behaviour catalogue: entries and reports signed by the current code, folders
// searched, bad files named.
#include "src/report/known.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "oracles/case_run_test_cases.h"
#include "src/ir/program_json.h"
#include "src/report/report.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;
using case_test::Seed;
using case_test::SeedResults;

nlohmann::json SeedEntry() {
  return {{"format", "mmdiff.regression"},
          {"version", 1},
          {"title", "inductor promotes a float16 @ float32 matmul"},
          {"upstream", "pytorch/pytorch#177630"},
          {"program", ProgramToJson(Seed())},
          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
          {"paths", {"reference", "eager", "inductor"}},
          {"expected",
           {{{"torch", ">=2.11.0,<2.12"},
             {"verdict", "diverge"},
             {"divergences", {{{"kind", "error_behaviour"}, {"blamed", "inductor"}}}}},
            {{"torch", ">=2.12"}, {"verdict", "agree"}}}}};
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("mmdiff_known_test_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir / "sub"); }
  ~Scratch() { fs::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) {
    EXPECT_TRUE(WriteFileAtomic((dir / name).string(), text).ok());
    return (dir / name).string();
  }
};

TEST(KnownCatalogue, AnEntryIsKnownUnderTheSignatureACampaignGivesItsCase) {
  Scratch s;
  s.Write("sub/seed.json", SeedEntry().dump());
  s.Write("program.json", ProgramToJson(Seed()).dump());  // other JSON in a folder is passed over
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 1u);
  CaseRun c = JudgeCase(Seed(), {"grid16", 3}, SeedResults());
  const KnownCause* k = cat.value().Find(CaseFinding(c).signature);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->title, "inductor promotes a float16 @ float32 matmul");
  EXPECT_EQ(k->upstream, "pytorch/pytorch#177630");
  EXPECT_EQ(KnownRecordToJson(k->Record("2.11.0"))["upstream"], "pytorch/pytorch#177630");
  // Another path at fault is not that entry.
  std::vector<PathResult> ts = SeedResults();
  ts[2].path = "torchscript";
  EXPECT_EQ(cat.value().Find(CaseFinding(JudgeCase(Seed(), {"grid16", 3}, ts)).signature), nullptr);
}

TEST(KnownCatalogue, ATrainingEntrysValueDivergenceIsKnownInAGradientToo) {
  Program p;
  p.inputs = {{"a", {2, 3, 4}, DType::kBFloat16}, {"b", {2, 4, 5}, DType::kBFloat16}};
  p.inputs[0].requires_grad = true;
  p.nodes = {{"v0", OpKind::kBmm, {"a", "b"}}};
  p.outputs = {"v0"};
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"version", 1},
                          {"title", "eager's bfloat16 bmm NaN in backward"},
                          {"program", ProgramToJson(p)},
                          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                          {"paths", {"reference", "eager"}},
                          {"expected",
                           {{{"torch", ">=2.11.0"},
                             {"verdict", "diverge"},
                             {"divergences", {{{"kind", "value"}, {"blamed", "eager"}}}}}}}};
  Scratch s;
  s.Write("entry.json", entry.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find("value|path=eager|grad_values|op=bmm|devices=cpu,cpu"), nullptr);
  EXPECT_NE(cat.value().Find("value|path=eager|values|op=bmm|devices=cpu,cpu"), nullptr);
  // A forward-only entry names the forward only.
  p.inputs[0].requires_grad = false;
  entry["program"] = ProgramToJson(p);
  s.Write("entry.json", entry.dump());
  cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().Find("value|path=eager|grad_values|op=bmm|devices=cpu,cpu"), nullptr);
}

// An entry records a value divergence's kind, not its classification, so it never claims the
// precision-only root cause of an explicit cast round trip (cast_round_trip.h): such a finding
// stays new, gets the mitigation reruns, and folds as by design where emulate_precision_casts
// removes it (torch 2.15.0), instead of being listed as pytorch#185337's entry there.
TEST(KnownCatalogue, AnEntryNeverClaimsACastRoundTripWhichTheKnobMayFold) {
  Program p;
  p.inputs = {{"x1", {1}, DType::kFloat32}};
  p.nodes = {{"v2", OpKind::kCast, {"x1"}, DType::kFloat16},
             {"v3", OpKind::kCast, {"v2"}, DType::kFloat32}};
  p.outputs = {"v3"};
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"version", 1},
                          {"title", "inductor drops a cast round trip"},
                          {"program", ProgramToJson(p)},
                          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                          {"paths", {"reference", "eager", "inductor"}},
                          {"expected",
                           {{{"torch", ">=2.11.0"},
                             {"verdict", "diverge"},
                             {"divergences", {{{"kind", "value"}, {"blamed", "inductor"}}}}}}}};
  Scratch s;
  s.Write("entry.json", entry.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find("value|path=inductor|values|ops=none|devices=cpu"), nullptr);
  EXPECT_EQ(cat.value().Find("value|path=inductor|cast_round_trip|devices=cpu"), nullptr);
}

// An expectation is signed by the contract of its own release: the addmv entry's 2.11 divergences
// (eager's deviation, and eager on meta and Inductor's float32 restating it) name eager's
// deviation only, never the generic eager-on-meta root cause that the newest contract, which has
// no deviation there, would make of its meta divergence (seen on 2.15.0: 9 cases of that generic
// cause listed under the addmv entry's title).
TEST(KnownCatalogue, AnExpectationIsSignedByTheContractOfItsRelease) {
  Program p;
  p.inputs = {
      {"b", {3}, DType::kFloat32}, {"m", {3, 4}, DType::kBFloat16}, {"v", {4}, DType::kBFloat16}};
  p.nodes = {{"y", OpKind::kAddmv, {"b", "m", "v"}}};
  p.outputs = {"y"};
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"version", 1},
                          {"title", "eager before 2.12 accepts addmv with a bias of another dtype"},
                          {"program", ProgramToJson(p)},
                          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                          {"paths", {"reference", "eager", "eager_meta", "inductor"}},
                          {"expected",
                           {{{"torch", ">=2.11.0,<2.12.0"},
                             {"verdict", "diverge"},
                             {"divergences",
                              {{{"kind", "meta"}, {"blamed", "eager_meta"}},
                               {{"kind", "dtype"}, {"blamed", ""}},
                               {{"kind", "contract"}, {"blamed", "eager"}}}}},
                            {{"torch", ">=2.12.0"}, {"verdict", "agree"}}}}};
  Scratch s;
  s.Write("entry.json", entry.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(
      cat.value().Find(
          "contract|path=eager|accepts|rule=same_dtype|deviation=addmv_bias_dtype|devices=cpu"),
      nullptr);
  EXPECT_EQ(cat.value().Find("meta|path=eager_meta|skips_check|rule=same_dtype"), nullptr);
  EXPECT_EQ(cat.value().size(), 1u);
}

TEST(KnownCatalogue, ThePathsThatRestateEagersOwnFindingAreNoEntriesOfTheirOwn) {
  // Eager accepts an empty float64 @ int64 bmm, which the rule rejects; eager on meta and the
  // compiled paths raise as the rule says (blamed on eager beside its contract divergence), and
  // where another path accepted too with another dtype (unblamed) it breaks the same rule. One root
  // cause, eager's: the meta divergence must not stand for the catalogued meta skips_check cause.
  Program p;
  p.inputs = {{"a", {0, 2, 3}, DType::kFloat64}, {"b", {0, 3, 4}, DType::kInt64}};
  p.nodes = {{"v0", OpKind::kBmm, {"a", "b"}}};
  p.outputs = {"v0"};
  auto div = [](const std::string& kind, const std::string& blamed) {
    return nlohmann::json{{"kind", kind}, {"blamed", blamed}};
  };
  nlohmann::json entry = {
      {"format", "mmdiff.regression"},
      {"version", 1},
      {"title", "eager accepts an empty mixed-dtype bmm"},
      {"program", ProgramToJson(p)},
      {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
      {"paths", {"reference", "eager", "eager_meta", "inductor"}},
      {"expected",
       {{{"torch", "<2.12"},
         {"verdict", "diverge"},
         {"divergences", {div("contract", "eager"), div("dtype", "")}}},
        {{"torch", ">=2.12"},
         {"verdict", "diverge"},
         {"divergences",
          {div("contract", "eager"), div("meta", "eager"), div("error_behaviour", "eager")}}}}}};
  Scratch s;
  s.Write("entry.json", entry.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 1u);
  EXPECT_NE(
      cat.value().Find(
          "contract|path=eager|accepts|rule=same_dtype|deviation=empty_bmm_dtype|devices=cpu"),
      nullptr);
  EXPECT_EQ(cat.value().Find("meta|path=eager_meta|skips_check|rule=same_dtype"), nullptr);
  // Without eager's own divergence beside it, a divergence blamed on eager is an entry of its own.
  entry["expected"][1]["divergences"] = nlohmann::json::array({div("error_behaviour", "eager")});
  s.Write("entry.json", entry.dump());
  cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 2u);
}

TEST(KnownCatalogue, ARaisingPathsFindingIsKnownWhateverItsErrorClass) {
  KnownCatalogue cat;
  cat.Add({"error_behaviour|path=inductor|raises:?|ops=mm,add|devices=meta,meta", "graph order", "",
           "entry.json"});
  const KnownCause* k =
      cat.Find("error_behaviour|path=inductor|raises:RuntimeError|ops=mm,add|devices=meta,meta");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->title, "graph order");
  EXPECT_EQ(cat.Find("error_behaviour|path=inductor|raises:RuntimeError|ops=mm|devices=meta,meta"),
            nullptr);
  EXPECT_EQ(cat.Find("error_behaviour|path=aot_eager|raises:RuntimeError|ops=mm,add|devices=meta,"
                     "meta"),
            nullptr);
}

// An attention program (bmm, softmax, bmm) whose inductor run `kind` ("value" or
// "error_behaviour") diverges after fusing `fused`, as a regression entry.
nlohmann::json FusedEntry(const std::string& kind, const std::string& fused,
                          const std::vector<std::string>& alike) {
  Program p;
  p.inputs = {{"q", {1, 2, 3}, DType::kFloat32},
              {"k", {1, 3, 2}, DType::kFloat32},
              {"v", {1, 2, 3}, DType::kFloat32}};
  Node softmax{"v1", OpKind::kSoftmax, {"v0"}};
  softmax.ints = {-1};
  p.nodes = {{"v0", OpKind::kBmm, {"q", "k"}}, softmax, {"v2", OpKind::kBmm, {"v1", "v"}}};
  p.outputs = {"v2"};
  nlohmann::json d = {{"kind", kind}, {"blamed", "inductor"}, {"fused", fused}};
  if (!alike.empty()) d["fused_alike"] = alike;
  nlohmann::json e = SeedEntry();
  e["program"] = ProgramToJson(p);
  e["expected"] = {{{"torch", ">=2.11.0"}, {"verdict", "diverge"}, {"divergences", {d}}}};
  return e;
}

// An entry may name the patterns whose replacements share its fault: a sibling pattern's finding
// is known, another pattern's is not; in the values or in the gradients (a replacement's wrong
// scale shows in both), though the entry's program does not train.
TEST(KnownCatalogue, AFusionEntryIsKnownInThePatternsItNamesAlike) {
  Scratch s;
  s.Write("e.json", FusedEntry("value", "_sfdp_pattern_15", {"_sfdp_pattern_20"}).dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 4u);
  const std::string sig = "value|path=inductor|R|fused=_sfdp_pattern_N|op=bmm|devices=cpu,cpu";
  auto with = [&](const std::string& n, const std::string& result = "values") {
    std::string out = sig;
    out.replace(out.find("_N|"), 2, "_" + n);
    return out.replace(out.find("|R|"), 3, "|" + result + "|");
  };
  EXPECT_NE(cat.value().Find(with("15")), nullptr);
  EXPECT_NE(cat.value().Find(with("20")), nullptr);
  EXPECT_NE(cat.value().Find(with("20", "grad_values")), nullptr);
  EXPECT_EQ(cat.value().Find(with("19")), nullptr);
  EXPECT_EQ(cat.value().Find(with("19", "grad_values")), nullptr);
}

// An entry of a compiled path raising after a fusion is known whatever the pattern and class.
TEST(KnownCatalogue, AnErrorAfterAFusionIsKnownWhateverThePattern) {
  Scratch s;
  s.Write("e.json", FusedEntry("error_behaviour", "_sfdp_pattern_2", {}).dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find("error_behaviour|path=inductor|raises:RuntimeError|fused|devices=cpu"),
            nullptr);
  EXPECT_EQ(cat.value().Find(
                "error_behaviour|path=inductor|raises:RuntimeError|ops=bmm,softmax|devices=cpu"),
            nullptr);
}

// An entry whose error carries a compiler defect's mark ("error_mark") is known whatever the ops
// the defect shows in; an unknown mark is a bad entry.
TEST(KnownCatalogue, AnErrorWithAMarkIsKnownWhateverTheOps) {
  Scratch s;
  Program p = Seed({8, 8});
  p.inputs[1].shape = {8, 64};
  p.inputs[0].dtype = DType::kFloat32;
  for (auto& in : p.inputs) in.device = Device::kMeta;
  nlohmann::json entry = SeedEntry();
  entry["program"] = ProgramToJson(p);
  entry["expected"] = {
      {{"torch", ">=2.11.0"},
       {"verdict", "diverge"},
       {"divergences",
        {{{"kind", "error_behaviour"}, {"blamed", "inductor"}, {"error_mark", "graph_order"}}}}}};
  s.Write("e.json", entry.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(cat.value().Find(
                "error_behaviour|path=inductor|raises:RuntimeError|graph_order|devices=meta"),
            nullptr);
  EXPECT_EQ(cat.value().Find("error_behaviour|path=inductor|raises:RuntimeError|ops=linear,silu|"
                             "devices=meta"),
            nullptr);
  entry["expected"][0]["divergences"][0]["error_mark"] = "anything";
  s.Write("e.json", entry.dump());
  auto bad = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("\"error_mark\" must be a known mark"), std::string::npos)
      << bad.error();
}

// An entry whose error shows whatever pointwise epilogue follows the product ("epilogues_alike")
// is known with each of them in place of its own (pytorch#185405: max-autotune's BMM template
// failing with silu, sigmoid, tanh, gelu or clamp alike); without it, only with its own; a flag
// that is not true or false is a bad entry.
TEST(KnownCatalogue, AnEntryWhoseErrorShowsWhateverTheEpilogueIsKnownWithEach) {
  Scratch s;
  auto shared_product = [](const char* epilogue) {
    return nlohmann::json{
        {"format", "mmdiff.program"},
        {"version", 1},
        {"inputs",
         {{{"name", "x0"}, {"dtype", "float32"}, {"device", "cpu"}, {"shape", {2, 2, 2}}},
          {{"name", "x1"}, {"dtype", "float32"}, {"device", "cpu"}, {"shape", {1, 2, 2, 2}}}}},
        {"nodes",
         {{{"name", "v0"}, {"op", "matmul"}, {"args", {"x0", "x1"}}},
          {{"name", "v1"}, {"op", epilogue}, {"args", {"v0"}}}}},
        {"outputs", {"v1", "v0"}}};
  };
  auto entry = [&](const char* epilogue, const nlohmann::json& alike) {
    nlohmann::json e = SeedEntry();
    e["program"] = shared_product(epilogue);
    nlohmann::json d = {{"kind", "error_behaviour"}, {"blamed", "inductor_max_autotune"}};
    if (!alike.is_null()) d["epilogues_alike"] = alike;
    e["expected"] = {{{"torch", ">=2.11.0"}, {"verdict", "diverge"}, {"divergences", {d}}}};
    return e.dump();
  };
  auto signature = [&](const char* epilogue) {
    auto k = ReadKnownFile(s.Write(std::string("sig-") + epilogue + ".json", entry(epilogue, {})));
    EXPECT_TRUE(k.ok() && k.value().size() == 1) << epilogue;
    return k.ok() && !k.value().empty() ? k.value()[0].signature : std::string();
  };
  const std::string sigmoid = signature("sigmoid"), clamp = signature("clamp");
  const std::string silu = signature("silu");
  fs::create_directories(s.dir / "alike");
  s.Write("alike/e.json", entry("silu", true));
  auto cat = LoadKnownCatalogue({(s.dir / "alike").string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_NE(sigmoid, silu);
  for (const std::string& sig : {silu, sigmoid, clamp})
    EXPECT_NE(cat.value().Find(sig), nullptr) << sig;
  s.Write("alike/e.json", entry("silu", false));
  auto own = LoadKnownCatalogue({(s.dir / "alike").string()}, "2.11.0");
  ASSERT_TRUE(own.ok()) << own.error();
  EXPECT_NE(own.value().Find(silu), nullptr);
  EXPECT_EQ(own.value().Find(sigmoid), nullptr);
  s.Write("alike/e.json", entry("silu", "yes"));
  auto bad = LoadKnownCatalogue({(s.dir / "alike").string()}, "2.11.0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("\"epilogues_alike\", if given, true or false"), std::string::npos)
      << bad.error();
}

TEST(KnownCatalogue, AReportIsKnownByItsOwnFinding) {
  Scratch s;
  CaseRun c = JudgeCase(Seed(), {"grid16", 3}, SeedResults());
  std::string file = s.Write("report.json", MakeReport(c, RunContext{}).dump());
  auto cat = LoadKnownCatalogue({file}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  const KnownCause* k = cat.value().Find(CaseFinding(c).signature);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->title, Headline(c));
  EXPECT_EQ(k->source, file);
}

TEST(KnownCatalogue, BadInputsAreErrorsThatNameTheFile) {
  Scratch s;
  auto missing = LoadKnownCatalogue({(s.dir / "nope").string()}, "2.11.0");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("nope"), std::string::npos);
  std::string bad =
      s.Write("bad.json", "{\"format\": \"mmdiff.regression\", \"version\": 1, \"title\": 3}");
  auto named = LoadKnownCatalogue({bad}, "2.11.0");
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.error().find("bad.json"), std::string::npos) << named.error();
  // In a folder too: a file that claims to be an entry and is not is an error, not a silent gap.
  auto folder = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  EXPECT_FALSE(folder.ok());
  std::string other = s.Write("sub/x.json", "[1, 2]");
  EXPECT_FALSE(LoadKnownCatalogue({other}, "2.11.0").ok());
  std::string truncated = s.Write("sub/t.json", SeedEntry().dump().substr(0, 40));
  EXPECT_FALSE(LoadKnownCatalogue({truncated}, "2.11.0").ok());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// Entries of eager's bfloat16 products returning NaN ("nan": true), each of another op, are one
// catalogue root cause: a campaign's case of either signs to it.
TEST(KnownCatalogue, EntriesOfEagersBfloat16NanInDifferentOpsAreOneRootCause) {
  Scratch s;
  auto entry = [](OpKind op, std::vector<Shape> shapes) {
    Program p;
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      p.inputs.push_back({names.back(), shapes[i], DType::kBFloat16});
    }
    p.nodes = {{"v0", op, names}};
    p.outputs = {"v0"};
    return nlohmann::json{
        {"format", "mmdiff.regression"},
        {"version", 2},
        {"title", "eager's bfloat16 products return NaN"},
        {"program", ProgramToJson(p)},
        {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
        {"paths", {"reference", "eager"}},
        {"expected",
         {{{"torch", ">=2.15.0"},
           {"verdict", "diverge"},
           {"divergences", {{{"kind", "value"}, {"blamed", "eager"}, {"nan", true}}}}}}}};
  };
  s.Write("mm.json", entry(OpKind::kMm, {{2, 3}, {3, 2}}).dump());
  s.Write("bmm.json", entry(OpKind::kBmm, {{1, 2, 3}, {1, 3, 2}}).dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.15.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 1u);
  const KnownCause* k = cat.value().Find("value|path=eager|bfloat16_products_nan|devices=cpu,cpu");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->title, "eager's bfloat16 products return NaN");
  // Without "nan", each entry signs its own op.
  auto plain = entry(OpKind::kMm, {{2, 3}, {3, 2}});
  plain["expected"][0]["divergences"][0].erase("nan");
  s.Write("mm.json", plain.dump());
  cat = LoadKnownCatalogue({s.dir.string()}, "2.15.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  EXPECT_EQ(cat.value().size(), 2u);
}

TEST(KnownCatalogue, AnEntryClaimsAFindingOnlyOnAReleaseWhereItExpectsIt) {
  Scratch s;
  s.Write("seed.json", SeedEntry().dump());  // diverges on 2.11, agrees from 2.12
  const std::string sig = CaseFinding(JudgeCase(Seed(), {"grid16", 3}, SeedResults())).signature;
  auto on211 = LoadKnownCatalogue({s.dir.string()}, "2.11.0+cu130");
  ASSERT_TRUE(on211.ok()) << on211.error();
  EXPECT_NE(on211.value().Find(sig), nullptr);
  EXPECT_FALSE(on211.value().Unclaimed(sig).has_value());
  // Where it expects agreement, the finding is new: the bug back, or a form the fix misses.
  auto on215 = LoadKnownCatalogue({s.dir.string()}, "2.15.0+cu132");
  ASSERT_TRUE(on215.ok()) << on215.error();
  EXPECT_EQ(on215.value().Find(sig), nullptr);
  auto back = on215.value().Unclaimed(sig);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->standing, "back");
  EXPECT_EQ(back->title, "inductor promotes a float16 @ float32 matmul");
  EXPECT_EQ(back->why,
            "expects agreement on torch 2.15.0+cu132 (>=2.12); this divergence on >=2.11.0,<2.12");
  // The same catalogue asked about another release answers for that one (triage's campaigns).
  EXPECT_NE(on215.value().Find(sig, "2.11.0"), nullptr);
  // An entry with no expectation for this release claims nothing, and says so.
  nlohmann::json only211 = SeedEntry();
  only211["expected"].erase(1);
  s.Write("seed.json", only211.dump());
  auto none = LoadKnownCatalogue({s.dir.string()}, "2.15.0");
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(none.value().Find(sig), nullptr);
  auto unset = none.value().Unclaimed(sig);
  ASSERT_TRUE(unset.has_value());
  EXPECT_EQ(unset->standing, "no_expectation");
  EXPECT_NE(unset->why.find("has no expectation for torch 2.15.0"), std::string::npos)
      << unset->why;
  // A signature nobody catalogued matches nothing.
  EXPECT_FALSE(none.value().Unclaimed("value|path=inductor|values|op=mm|devices=cpu,cpu"));
}

TEST(KnownCatalogue, AnEntryExpectingItHereClaimsItBeforeOneThatExpectsAFix) {
  Scratch s;
  s.Write("a-fixed.json", SeedEntry().dump());  // read first: agrees on 2.15
  nlohmann::json live = SeedEntry();
  live["title"] = "still there";
  live["expected"] = {{{"torch", ">=2.11.0"},
                       {"verdict", "diverge"},
                       {"divergences", {{{"kind", "error_behaviour"}, {"blamed", "inductor"}}}}}};
  s.Write("b-live.json", live.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.15.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  const std::string sig = CaseFinding(JudgeCase(Seed(), {"grid16", 3}, SeedResults())).signature;
  const KnownCause* k = cat.value().Find(sig);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->title, "still there");
  EXPECT_EQ(k->Record("2.15.0").standing, "");
  EXPECT_FALSE(cat.value().Unclaimed(sig).has_value());
}

TEST(KnownCatalogue, AnExpectationOfAnotherCpuClaimsNothingHere) {
  Scratch s;
  nlohmann::json e = SeedEntry();
  e["expected"][0]["cpu_flags"] = {"mmdiff_no_such_cpu_flag"};
  s.Write("seed.json", e.dump());
  auto cat = LoadKnownCatalogue({s.dir.string()}, "2.11.0");
  ASSERT_TRUE(cat.ok()) << cat.error();
  const std::string sig = CaseFinding(JudgeCase(Seed(), {"grid16", 3}, SeedResults())).signature;
  EXPECT_EQ(cat.value().Find(sig), nullptr);
  auto u = cat.value().Unclaimed(sig);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->standing, "no_expectation");
  EXPECT_NE(u->why.find("only on a CPU with mmdiff_no_such_cpu_flag"), std::string::npos) << u->why;
}

TEST(KnownCatalogue, AStandingIsReadBackAndABadOneIsAnError) {
  KnownRecord r{"t", "pytorch/pytorch#1", "e.json", "back", "expects agreement on torch 2.15.0"};
  auto back = KnownRecordFromJson(KnownRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), r);
  nlohmann::json bad = KnownRecordToJson(r);
  bad["standing"] = "gone";
  EXPECT_FALSE(KnownRecordFromJson(bad).ok());
  bad["standing"] = 3;
  EXPECT_FALSE(KnownRecordFromJson(bad).ok());
}

}  // namespace
}  // namespace mmdiff
