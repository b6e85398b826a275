// summary.json round trip: what --resume reads back is what the campaign ran with.
#include <gtest/gtest.h>

#include "src/campaign/fuzz_campaign.h"
#include "src/campaign/steering.h"
#include "src/support/hash.h"

namespace mmdiff {
namespace {

TEST(FuzzSummary, ResumeReadsBackTheReductionLimitsAndTheBudget) {
  FuzzOptions o;
  o.seed = 7;
  o.jobs = 3;
  o.time_s = 120;
  o.max_cases = 500;
  o.paths = {"reference", "eager"};
  o.stage_timeout_s = 9;
  o.reduce_budget = 12;
  o.reduce_time_s = 45;
  FuzzSummary s;
  s.cases = 4;
  s.inputs.special_inputs = 2;
  s.inputs.special_elements = 30;
  s.inputs.special_unjudged = 5;
  s.inputs.ignored_input_reruns = 3;
  nlohmann::json j = SummaryToJson(s, o);

  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.jobs, 3);
  EXPECT_EQ(back.time_s, 120);
  EXPECT_EQ(back.max_cases, 500);
  EXPECT_EQ(back.paths, o.paths);
  EXPECT_EQ(back.stage_timeout_s, 9);
  EXPECT_EQ(back.reduce_budget, 12);
  EXPECT_EQ(back.reduce_time_s, 45);
  EXPECT_EQ(sback.cases, 4);
  EXPECT_EQ(sback.inputs.special_inputs, 2);
  EXPECT_EQ(sback.inputs.special_elements, 30);
  EXPECT_EQ(sback.inputs.special_unjudged, 5);
  EXPECT_EQ(sback.inputs.ignored_input_reruns, 3);

  // A summary written before --reduce-time existed resumes with the default limit.
  j["resume"].erase("reduce_time_s");
  back = FuzzOptions{};
  back.reduce_time_s = -1;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.reduce_time_s, FuzzOptions{}.reduce_time_s);
}

// --resume reads everything from summary.json: out-of-range values are a clear error, never a
// segfault (jobs 0), an allocation of 10^9 workers, a hang no timeout kills (a negative stage
// timeout), or a truncation that makes another generator version read as this one.
TEST(FuzzSummary, ResumeRejectsValuesOutOfRange) {
  FuzzOptions o;
  o.paths = {"reference", "eager"};
  FuzzSummary s;
  s.done_below = 3;
  s.done_extra = {5, 7};
  const nlohmann::json good = SummaryToJson(s, o);
  auto reads = [](const nlohmann::json& j) {
    FuzzOptions back;
    FuzzSummary sback;
    return SummaryFromJson(j, back, sback);
  };
  ASSERT_TRUE(reads(good).ok()) << reads(good).message();
  auto with = [&](const nlohmann::json::json_pointer& at, const nlohmann::json& v) {
    nlohmann::json j = good;
    j[at] = v;
    return reads(j);
  };
  using P = nlohmann::json::json_pointer;
  for (const nlohmann::json& jobs :
       {nlohmann::json(0), nlohmann::json(-1), nlohmann::json(1000000000),
        nlohmann::json(4294967297ull), nlohmann::json(2.5), nlohmann::json("2")})
    EXPECT_FALSE(with(P("/jobs"), jobs).ok()) << jobs.dump();
  EXPECT_TRUE(with(P("/jobs"), 4).ok());
  for (double t : {-1.0, 0.0, 1e9}) EXPECT_FALSE(with(P("/resume/stage_timeout_s"), t).ok()) << t;
  EXPECT_FALSE(with(P("/resume/reduce_budget"), -1).ok());
  EXPECT_FALSE(with(P("/resume/reduce_time_s"), -5.0).ok());
  EXPECT_FALSE(with(P("/budget/time_s"), -5.0).ok());
  EXPECT_FALSE(with(P("/budget/cases"), -7).ok());
  EXPECT_FALSE(with(P("/cases"), -1).ok());
  EXPECT_FALSE(with(P("/worker_restarts"), 4294967297ull).ok());
  EXPECT_FALSE(with(P("/elapsed_s"), -3.0).ok());
  EXPECT_FALSE(with(P("/checked_inputs"), -3).ok());
  EXPECT_FALSE(with(P("/special_values/unjudged"), -1).ok());
  EXPECT_FALSE(with(P("/special_values/unjudged"), 1).ok());  // more than its 0 elements
  for (const nlohmann::json& b : {nlohmann::json(), nlohmann::json::object(), nlohmann::json(3)})
    EXPECT_FALSE(with(P("/buckets"), b).ok()) << b.dump();  // would drop every bucket
  // 2^32 + the right version is another version, not this one.
  const int64_t gen = good.at("resume").at("generator_version").get<int64_t>();
  EXPECT_FALSE(with(P("/resume/generator_version"), (int64_t{1} << 32) + gen).ok());
  const int64_t version = good.at("version").get<int64_t>();
  EXPECT_FALSE(with(P("/version"), (int64_t{1} << 32) + version).ok());
  EXPECT_FALSE(with(P("/resume/done_below"), -2).ok());
  EXPECT_FALSE(with(P("/resume/done_extra"), nlohmann::json::array({5, 5})).ok());
  EXPECT_FALSE(with(P("/resume/done_extra"), nlohmann::json::array({1})).ok());  // below done_below
}

TEST(FuzzSummary, NewRootCausesFirstWithBucketsThatReduceToOneCauseTogetherThenKnownOnes) {
  FuzzOptions o;
  o.known_paths = {"corpus/regression"};
  o.reduce_known = true;
  o.ablation = false;
  FuzzSummary s;
  auto bucket = [](const std::string& sig, int64_t first, const std::string& reduced, bool known) {
    BucketStats b;
    b.signature = sig;
    b.headline = sig;
    b.finding_dir = "findings/" + HashHex(reduced.empty() ? sig : reduced);
    b.count = 2;
    b.first_index = first;
    b.reduced_signature = reduced;
    if (known) b.known = KnownRecord{"a known one", "", "x.json"};
    if (!known) b.standalone = StandaloneRecord{2, 2, 1, 1, 1, "reproduced"};
    return b;
  };
  s.buckets[HashHex("a")] = bucket("a-ops", 5, "bmm-raises", false);
  s.buckets[HashHex("b")] = bucket("b", 1, "", true);
  s.buckets[HashHex("c")] = bucket("c", 7, "", false);
  s.buckets[HashHex("d")] = bucket("d-ops", 9, "bmm-raises", false);
  s.buckets[HashHex("e")] = bucket("e", 3, "", false);
  s.buckets[HashHex("f")] = bucket("f", 0, "", false);
  s.buckets[HashHex("f")].finding_dir.clear();  // claimed, not written yet: not listed
  // Not reproduced standalone: counted apart, listed after the new root causes.
  s.buckets[HashHex("g")] = bucket("g", 11, "", false);
  s.buckets[HashHex("g")].standalone = StandaloneRecord{2, 2, 3, 0, 0, "repro.py exit 0"};
  nlohmann::json j = SummaryToJson(s, o);
  std::vector<std::string> order;
  for (const auto& b : j["buckets"]) order.push_back(b["hash"]);
  EXPECT_EQ(order, (std::vector<std::string>{HashHex("e"), HashHex("a"), HashHex("d"), HashHex("c"),
                                             HashHex("g"), HashHex("b")}));
  EXPECT_EQ(j["new_buckets"], 5);
  EXPECT_EQ(j["new_root_causes"], 3);
  EXPECT_EQ(j["not_reproduced_root_causes"], 1);
  EXPECT_EQ(j["buckets"][4]["standalone"]["status"], "not_reproduced");
  EXPECT_EQ(j["known_buckets"], 1);
  EXPECT_EQ(j["buckets"][1]["reduced_signature"], "bmm-raises");
  EXPECT_FALSE(j["buckets"][3].contains("reduced_signature"));
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.known_paths, o.known_paths);
  EXPECT_TRUE(back.reduce_known);
  EXPECT_FALSE(back.ablation);  // --no-ablation holds across --resume
  EXPECT_EQ(sback.buckets[HashHex("a")].reduced_signature, "bmm-raises");
  ASSERT_TRUE(sback.buckets[HashHex("b")].known.has_value());
  EXPECT_EQ(sback.buckets[HashHex("b")].known->title, "a known one");
  EXPECT_EQ(sback.buckets[HashHex("d")].finding_dir, sback.buckets[HashHex("a")].finding_dir);
  EXPECT_EQ(sback.buckets[HashHex("g")].standalone, s.buckets[HashHex("g")].standalone);
  EXPECT_FALSE(sback.buckets[HashHex("b")].standalone.has_value());
}

// A resumed campaign writes and removes finding folders: a summary naming one outside findings/
// is malformed, not followed.
// A summary of one bucket "x" whose smallest case is `first_index`, with its folder.
BucketStats OneCaseBucket(int64_t first_index) {
  BucketStats b;
  b.signature = b.headline = "x";
  b.count = 1;
  b.first_index = first_index;
  b.finding_dir = "findings/" + HashHex("x");
  return b;
}

TEST(FuzzSummary, ResumeRejectsAFindingFolderOutsideFindings) {
  FuzzOptions o;
  FuzzSummary s;
  s.buckets[HashHex("x")] = OneCaseBucket(0);
  nlohmann::json j = SummaryToJson(s, o);
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  for (const char* bad : {"findings/..", "../../etc", "findings/0123456789abcdef/..",
                          "/tmp/0123456789abcdef", "findings/0123456789ABCDEF", ""}) {
    j["buckets"][0]["finding"] = bad;
    Status st = SummaryFromJson(j, back, sback);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("\"finding\" must be findings/<16 hex digits>"), std::string::npos)
        << st.message();
  }
}

// A bucket's catalogue entry is read back as written, and one that is not {"title", "source",
// "upstream"} of strings is an error naming it (it was printed and rendered as it stood, and a
// number there aborted the campaign at its summary).
TEST(FuzzSummary, ResumeReadsBackAKnownBucketAndRejectsAMalformedEntry) {
  FuzzOptions o;
  FuzzSummary s;
  s.buckets[HashHex("x")] = OneCaseBucket(0);
  s.buckets[HashHex("x")].known = KnownRecord{"a title", "pytorch/pytorch#1", "corpus/x.json"};
  nlohmann::json j = SummaryToJson(s, o);
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(sback.buckets[HashHex("x")].known, s.buckets[HashHex("x")].known);
  for (const nlohmann::json& bad :
       {nlohmann::json(true), nlohmann::json{{"title", 5}}, nlohmann::json{{"title", "t"}},
        nlohmann::json{{"title", "t"}, {"source", "s"}, {"upstream", {1}}}}) {
    j["buckets"][0]["known"] = bad;
    Status st = SummaryFromJson(j, back, sback);
    ASSERT_FALSE(st.ok()) << bad.dump();
    EXPECT_NE(st.message().find("\"known\""), std::string::npos) << st.message();
  }
}

// Pass coverage survives --resume: the campaign's rewrites and each bucket's, and the table names
// the bucket whose example reached a rewrite. A rewrite name that is not a plain name is an error.
TEST(FuzzSummary, ResumeReadsBackTheRewritesReached) {
  FuzzOptions o;
  FuzzSummary s;
  BucketStats b = OneCaseBucket(5);
  b.rewrites = {"fuse_attention._sfdp_pattern_1"};
  s.buckets[HashHex("x")] = b;
  s.rewrites.AddProgram({"fuse_attention._sfdp_pattern_1", "decompose:mm"}, 5, 6, 2.5);
  nlohmann::json j = SummaryToJson(s, o);
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(sback.rewrites.ToJson(), s.rewrites.ToJson());
  EXPECT_EQ(sback.buckets.at(HashHex("x")).rewrites, b.rewrites);
  std::vector<RewriteRow> rows = SummaryRewriteRows(sback);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].buckets.empty());  // decompose:mm, sorted first by name
  EXPECT_EQ(rows[1].buckets, std::vector<std::string>{HashHex("x")});

  j["buckets"][0]["rewrites"] = {"$(rm -rf /)"};
  EXPECT_FALSE(SummaryFromJson(j, back, sback).ok());
  j["buckets"][0]["rewrites"] = b.rewrites;
  j["rewrites"]["decompose:mm"]["programs"] = -3;
  Status st = SummaryFromJson(j, back, sback);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("programs is out of range"), std::string::npos) << st.message();
}

// A steered campaign's state and its buckets' foci survive --resume; a steered summary without a
// well-formed state, or naming a focus that is none, is an error.
TEST(FuzzSummary, ResumeReadsBackTheSteeringState) {
  FuzzOptions o;
  o.steer = true;
  o.steer_yield = false;  // coverage steering; the yield scheduler's below
  o.steer_epoch_cases = 4;
  Steering steering(o.seed, o.shard, 4, SteerMode::kCoverage);
  steering.Record(0, 2, {"decompose.mm"});
  steering.Record(5, 0, {});
  FuzzSummary s;
  s.steering = steering.ToJson();
  BucketStats b = OneCaseBucket(5);
  b.first_focus = "attention";
  s.buckets[HashHex("x")] = b;
  nlohmann::json j = SummaryToJson(s, o);
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_TRUE(back.steer);
  EXPECT_EQ(back.steer_epoch_cases, 4);
  EXPECT_EQ(sback.steering, s.steering);
  EXPECT_EQ(sback.buckets.at(HashHex("x")).first_focus, "attention");

  auto rejects = [&](nlohmann::json k, const std::string& fragment) {
    Status st = SummaryFromJson(k, back, sback);
    ASSERT_FALSE(st.ok()) << k.dump();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
  };
  auto k = j;
  k.erase("steering");
  rejects(k, "no steering state");
  k = j;
  k["steering"]["epochs"][0]["foci"]["attention_masked"]["programs"] = -1;
  rejects(k, "steering:");
  k = j;
  k["buckets"][0]["first_focus"] = "nonesuch";
  rejects(k, "not a focus");
  k = j;
  k["resume"]["steer_epoch_cases"] = 0;
  rejects(k, "steering epoch");
  k = j;
  k["resume"]["scheduler"] = "bandit";
  rejects(k, "resume.scheduler must be");
  // The yield scheduler's state reads back with its scheduler; another scheduler's is an error.
  o.steer_yield = true;
  Steering yield(o.seed, o.shard, 4, SteerMode::kYield);
  yield.Record(0, 2, {"decompose.mm"}, 3.5, {HashHex("x")});
  s.steering = yield.ToJson();
  j = SummaryToJson(s, o);
  EXPECT_EQ(j["resume"]["scheduler"], "yield");
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_TRUE(back.steer_yield);
  EXPECT_EQ(sback.steering, s.steering);
  k = j;
  k["resume"]["scheduler"] = "coverage";
  rejects(k, "\"scheduler\" is not this campaign's");
  k = j;
  k["resume"].erase("scheduler");  // a summary from before the yield scheduler: coverage
  rejects(k, "\"scheduler\" is not this campaign's");
  // An unsteered summary keeps no state and needs none.
  o.steer = false;
  s.steering = nullptr;
  ASSERT_TRUE(SummaryFromJson(SummaryToJson(s, o), back, sback).ok());
  EXPECT_EQ(SummaryToJson(s, o)["resume"]["scheduler"], "none");
  EXPECT_FALSE(back.steer);
  EXPECT_TRUE(sback.steering.is_null());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// New root causes are ranked by what a maintainer acts on, whatever order they were found in;
// each line names its class; those not reproduced standalone come after, then known ones.
TEST(FuzzSummary, NewRootCausesAreRankedByClassThenNotReproducedThenKnown) {
  FuzzOptions o;
  FuzzSummary s;
  auto add = [&](const std::string& sig, int64_t first, bool reproduced = true) {
    BucketStats& b = s.buckets[HashHex(sig)];
    b.signature = b.headline = sig;
    b.finding_dir = "findings/" + HashHex(sig);
    b.count = 1;
    b.first_index = first;
    b.standalone = StandaloneRecord{2, 2, 1, reproduced ? 1 : 0, reproduced ? 1 : 0, ""};
  };
  add("meta|path=eager_meta|skips_check|rule=same_dtype", 0);
  add("value|path=inductor|by_design=emulate_precision_casts", 1);
  add("contract|path=eager|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu", 2);
  add("error_behaviour|path=inductor|accepts|rule=same_dtype|op=mm|devices=cpu,cpu", 3);
  add("error_behaviour|path=inductor|raises:NameError|ops=addmm|devices=cpu", 4);
  add("value|path=inductor|values|op=mm|devices=cpu", 5);
  add("dtype|path=aot_eager|returns|op=bmm|devices=cpu,cpu", 6);
  add("value|path=inductor|values|op=dot|devices=cpu", 7, /*reproduced=*/false);
  s.buckets[HashHex("known")] =
      s.buckets[HashHex("meta|path=eager_meta|skips_check|rule=same_dtype")];
  s.buckets[HashHex("known")].first_index = 0;
  s.buckets[HashHex("known")].signature = "known";
  s.buckets[HashHex("known")].finding_dir = "findings/" + HashHex("known");
  s.buckets[HashHex("known")].known = KnownRecord{"t", "", "x.json"};
  nlohmann::json j = SummaryToJson(s, o);
  std::vector<std::string> classes;
  for (const auto& b : j["buckets"]) classes.push_back(b["class"]);
  EXPECT_EQ(classes, (std::vector<std::string>{
                         "compiled-wrong-result", "compiled-wrong-result", "compiled-raises",
                         "compiled-accepts", "eager", "error-class-or-meta", "by-design",
                         "compiled-wrong-result",   // not reproduced standalone
                         "error-class-or-meta"}));  // known
  EXPECT_EQ(j["buckets"][0]["signature"], "value|path=inductor|values|op=mm|devices=cpu");
  EXPECT_EQ(j["buckets"][7]["signature"], "value|path=inductor|values|op=dot|devices=cpu");
  EXPECT_FALSE(j["buckets"][8]["new"].get<bool>());
  EXPECT_EQ(j["new_root_causes"], 7);
  EXPECT_EQ(j["not_reproduced_root_causes"], 1);
}

}  // namespace
}  // namespace mmdiff
