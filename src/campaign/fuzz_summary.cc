// summary.json of a campaign: written for users and read back by --resume.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "oracles/root_cause_fold.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/campaign/steering.h"
#include "src/gen/focus.h"
#include "src/gen/generator.h"
#include "src/ir/paths.h"
#include "src/report/finding_class.h"
#include "src/report/report.h"
#include "src/report/rerun_records_json.h"
#include "src/support/format_version.h"
#include "src/support/hash.h"

namespace mmdiff {

namespace {
constexpr const char* kFormat = "mmdiff.fuzz-summary";
// 2: buckets are root causes (one finding per divergence), new ones listed first, known ones with
// their catalogue entry. 3: each new root cause's standalone check, and those not reproduced
// standalone counted apart; signatures by the documented rule and by-design classes. Earlier
// campaigns cannot be resumed: their buckets were signed otherwise.
constexpr int kVersion = 3;

nlohmann::json WorkerFaultsToJson(const FuzzSummary& s) {
  nlohmann::json listed = nlohmann::json::array();
  for (const WorkerFaultCase& f : s.worker_faults)
    listed.push_back({{"index", f.index}, {"seed", f.seed}, {"detail", f.detail}});
  return {{"cases", s.worker_fault_cases}, {"listed", listed}};
}
}  // namespace

bool ListedAsNew(const BucketStats& b) {
  if (b.known) return false;
  return !b.standalone || StandaloneStatusOf(*b.standalone) != StandaloneStatus::kNotReproduced;
}

bool IsBack(const BucketStats& b) {
  return !b.known && b.unclaimed &&
         b.unclaimed->standing == KnownStandingName(KnownStanding::kBack);
}

std::set<std::string> NotReproducedCauses(const FuzzSummary& s) {
  std::set<std::string> listed, out;
  for (const auto& [hash, b] : s.buckets)
    if (b.count > 0 && ListedAsNew(b)) listed.insert(b.RootCause());
  for (const auto& [hash, b] : s.buckets)
    if (b.count > 0 && !b.finding_dir.empty() && !b.known && !listed.count(b.RootCause()))
      out.insert(b.RootCause());
  return out;
}

std::vector<std::pair<std::string, const BucketStats*>> OrderedBuckets(const FuzzSummary& s) {
  std::vector<std::pair<std::string, const BucketStats*>> out;
  for (const auto& [hash, b] : s.buckets)
    // Count 0, or no folder yet: claimed, its report not written yet (a resume adopts the folder).
    if (b.count > 0 && !b.finding_dir.empty()) out.emplace_back(hash, &b);
  // A root cause's first case index: its buckets are listed together, where its first one is.
  std::map<std::string, int64_t> first;
  for (const auto& [hash, b] : out) {
    auto [it, added] = first.emplace(b->RootCause(), b->first_index);
    if (!added) it->second = std::min(it->second, b->first_index);
  }
  // New root causes (reproduced standalone) first, by class; then new ones not reproduced; then
  // known ones.
  const std::set<std::string> unreproduced = NotReproducedCauses(s);
  auto group = [&](const BucketStats& b) {
    return b.known ? 3 : unreproduced.count(b.RootCause()) ? 2 : IsBack(b) ? 0 : 1;
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& x, const auto& y) {
    int gx = group(*x.second), gy = group(*y.second);
    if (gx != gy) return gx < gy;
    auto cx = ClassOfRootCause(x.second->RootCause()), cy = ClassOfRootCause(y.second->RootCause());
    if (gx < 3 && cx != cy) return cx < cy;
    int64_t fx = first.at(x.second->RootCause()), fy = first.at(y.second->RootCause());
    if (fx != fy) return fx < fy;
    return x.second->first_index < y.second->first_index;
  });
  return out;
}

std::vector<RewriteRow> SummaryRewriteRows(const FuzzSummary& s) {
  std::map<std::string, std::vector<std::string>> buckets;
  for (const auto& [hash, b] : s.buckets)
    if (b.count > 0) buckets[hash] = b.rewrites;
  return RewriteRows(s.rewrites, buckets);
}

void AddExample(BucketStats& b, uint64_t seed) {
  auto at = std::lower_bound(b.example_seeds.begin(), b.example_seeds.end(), seed);
  if (at != b.example_seeds.end() && *at == seed) return;
  b.example_seeds.insert(at, seed);
  if (b.example_seeds.size() > kBucketExamples) b.example_seeds.pop_back();
}

nlohmann::json SummaryToJson(const FuzzSummary& s, const FuzzOptions& o) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& [hash, b] : OrderedBuckets(s)) {
    nlohmann::json jb = {{"hash", hash},
                         {"signature", b->signature},
                         {"headline", b->headline},
                         {"finding", b->finding_dir},
                         {"count", b->count},
                         {"first_index", b->first_index},
                         {"first_seed", b->first_seed},
                         {"first_found_s", b->first_found_s},
                         {"example_seeds", b->example_seeds},
                         {"new", !b->known}};
    AddClassFields(jb, b->Class());
    if (b->known) jb["known"] = KnownRecordToJson(*b->known);
    if (b->unclaimed) jb["unclaimed"] = KnownRecordToJson(*b->unclaimed);
    if (!b->reduced_signature.empty()) jb["reduced_signature"] = b->reduced_signature;
    if (!b->reduced_headline.empty()) jb["reduced_headline"] = b->reduced_headline;
    if (!b->folded.empty()) jb["folded_root_cause"] = b->folded;
    jb["ops_seen"] = b->ops_seen;
    jb["rewrites"] = b->rewrites;
    if (!b->first_focus.empty()) jb["first_focus"] = b->first_focus;
    if (b->standalone) jb["standalone"] = StandaloneToJson(*b->standalone);
    buckets.push_back(jb);
  }
  int64_t known = std::count_if(buckets.begin(), buckets.end(),
                                [](const nlohmann::json& b) { return !b["new"].get<bool>(); });
  std::set<std::string> new_causes, unreproduced_causes = NotReproducedCauses(s);
  for (const auto& [hash, b] : OrderedBuckets(s))
    if (ListedAsNew(*b)) new_causes.insert(b->RootCause());
  nlohmann::json budget = {
      {"time_s", std::isfinite(o.time_s) ? nlohmann::json(o.time_s) : nlohmann::json(nullptr)},
      {"cases", o.max_cases}};
  nlohmann::json compile = s.inputs.ToJson();
  compile["cache_dir"] = o.inductor_cache_dir;
  return {{"format", kFormat},
          {"version", kVersion},
          {"seed", o.seed},
          {"shard", ShardText(o.shard)},
          {"jobs", o.jobs},
          {"budget", budget},
          {"cases", s.cases},
          {"diverging_cases", s.diverging_cases},
          {"skipped_paths", s.skipped_paths},
          {"cuda_cases_without_gpu", s.cuda_cases_without_gpu},
          {"worker_restarts", s.restarts},
          {"worker_recycles", s.recycles},
          {"resumes", s.resumes},
          {"elapsed_s", s.elapsed_s},
          {"profile", s.profile.ToJson()},
          {"inputs_per_program", o.policy.inputs_per_program},
          {"checked_inputs", s.inputs.checked_inputs},
          {"special_values",
           {{"inputs", s.inputs.special_inputs},
            {"elements", s.inputs.special_elements},
            {"unjudged", s.inputs.special_unjudged},
            {"ignored_input_reruns", s.inputs.ignored_input_reruns}}},
          {"compile", compile},
          {"rewrites", s.rewrites.ToJson()},
          {"steering", s.steering},
          {"interrupted", s.interrupted},
          {"worker_failure",
           s.worker_failure.empty() ? nlohmann::json() : nlohmann::json(s.worker_failure)},
          {"not_started", s.not_started},
          {"worker_faults", WorkerFaultsToJson(s)},
          {"paths", o.paths},
          {"variants", o.variants},
          {"new_buckets", static_cast<int64_t>(buckets.size()) - known},
          {"new_root_causes", static_cast<int64_t>(new_causes.size())},
          {"not_reproduced_root_causes", static_cast<int64_t>(unreproduced_causes.size())},
          {"known_buckets", known},
          {"buckets", buckets},
          {"resume",
           {{"generator_version", kGeneratorVersion},
            {"policy", PolicyToJson(o.policy)},
            {"test_paths", o.test_paths},
            {"stage_timeout_s", o.stage_timeout_s},
            {"reduce_budget", o.reduce_budget},
            {"reduce_time_s", o.reduce_time_s},
            {"known_paths", o.known_paths},
            {"reduce_known", o.reduce_known},
            {"controls", ControlsModeName(o.controls)},
            {"standalone_check", o.standalone_check},
            {"ablation", o.ablation},
            {"steer", o.steer},
            {"scheduler", !o.steer        ? "none"
                          : o.steer_yield ? "yield"
                                          : "coverage"},
            {"steer_epoch_cases", o.steer_epoch_cases},
            {"done_below", s.done_below},
            {"done_extra", s.done_extra}}}};
}

void InputStats::Add(const std::vector<PathResult>& results, bool new_shapes, bool special_values) {
  ++checked_inputs;
  shape_variants += new_shapes;
  const PathResult* ref = FindResult(results, paths::kReference);
  if (special_values && ref && ref->ok()) {
    ++special_inputs;
    for (const auto& t : ref->outputs) {
      special_elements += static_cast<int64_t>(t.data.size());
      for (double b : t.bound) special_unjudged += std::isinf(b) || std::isnan(b);
    }
  }
  for (const auto& r : results) {
    if (!r.compile.present) continue;
    compiles += r.compile.compiled;
    reuses += r.compile.reused && !r.compile.compiled;
    fx_cache_hits += r.compile.fx_cache_hits;
    fx_cache_misses += r.compile.fx_cache_misses;
  }
}

InputStats& InputStats::operator+=(const InputStats& o) {
  checked_inputs += o.checked_inputs;
  shape_variants += o.shape_variants;
  compiles += o.compiles;
  reuses += o.reuses;
  fx_cache_hits += o.fx_cache_hits;
  fx_cache_misses += o.fx_cache_misses;
  special_inputs += o.special_inputs;
  special_elements += o.special_elements;
  special_unjudged += o.special_unjudged;
  ignored_input_reruns += o.ignored_input_reruns;
  return *this;
}

nlohmann::json InputStats::ToJson() const {
  int64_t lookups = fx_cache_hits + fx_cache_misses;
  return {
      {"shape_variants", shape_variants},
      {"compiles", compiles},
      {"reuses", reuses},
      {"fx_cache_hits", fx_cache_hits},
      {"fx_cache_misses", fx_cache_misses},
      {"fx_cache_hit_rate",
       lookups ? nlohmann::json(static_cast<double>(fx_cache_hits) / lookups) : nlohmann::json()}};
}

InputStats InputStats::FromJson(const nlohmann::json& j) {
  InputStats s;
  s.shape_variants = j.value("shape_variants", int64_t{0});
  s.compiles = j.value("compiles", int64_t{0});
  s.reuses = j.value("reuses", int64_t{0});
  s.fx_cache_hits = j.value("fx_cache_hits", int64_t{0});
  s.fx_cache_misses = j.value("fx_cache_misses", int64_t{0});
  return s;
}

Status CheckFuzzOptions(const FuzzOptions& o) {
  auto range = [](const char* name, double v, double lo, double hi) {
    // NaN fails both comparisons, so it is out of every range.
    if (v >= lo && v <= hi) return Status::Ok();
    return Status::Error(std::string(name) + " " + nlohmann::json(v).dump() + " is out of range [" +
                         nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() + "]");
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (Status s :
       {range("jobs", o.jobs, 1, kMaxJobs),
        range("stage timeout (s)", o.stage_timeout_s, 1e-3, 86400),
        range("time budget (s)", o.time_s, 0, inf),
        range("case budget", static_cast<double>(o.max_cases), -1, 9e18),
        range("reduce budget", static_cast<double>(o.reduce_budget), 0, 1e6),
        range("reduce time (s)", o.reduce_time_s, 0, 7 * 86400.0),
        range("steering epoch (cases)", static_cast<double>(o.steer_epoch_cases), 1, 1e6)})
    if (!s.ok()) return s;
  return Status::Ok();
}

namespace {

// An integer field equal to `want`; false for any other value or type (a version of 2^32 + 1 is
// not 1).
// A count read back: an integer, not negative.
int64_t Count(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX / 2)))
    throw std::out_of_range(std::string("\"") + key + "\" must be a count, not " + v.dump());
  return v.get<int64_t>();
}

}  // namespace

Status SummaryFromJson(const nlohmann::json& j, FuzzOptions& o, FuzzSummary& s) {
  try {
    if (j.value("format", "") != kFormat)
      return Status::Error("not a campaign summary (format is not " + std::string(kFormat) + ")");
    if (auto v = ReadFormatVersion(j, "summary", kVersion, kVersion); !v.ok()) {
      if (ReadFormatVersion(j, "summary", 1, kVersion - 1).ok())
        return Status::Error(
            "summary version " + j.at("version").dump() +
            " was written by an older mmdiff and cannot be "
            "resumed: this one signs buckets by root cause (`mmdiff triage` still reads it)");
      return v.status();
    }
    if (!j.contains("resume"))
      return Status::Error("the summary has no resume state (written by an older mmdiff)");
    const auto& r = j.at("resume");
    if (auto g = ReadFormatVersion(r, "resume", kGeneratorVersion, kGeneratorVersion,
                                   "generator_version");
        !g.ok())
      return Status::Error(
          (r.contains("generator_version") && r.at("generator_version").is_number_integer()
               ? "the campaign was made with generator version " + r.at("generator_version").dump()
               : g.error()) +
          "; this mmdiff generates version " + std::to_string(kGeneratorVersion) +
          " programs, so its cases would differ");
    auto policy = PolicyFromJson(r.at("policy"));
    if (!policy.ok()) return Status::Error("policy: " + policy.error());
    o.policy = policy.value();
    o.test_paths = r.at("test_paths").get<bool>();
    o.stage_timeout_s = r.at("stage_timeout_s").get<double>();
    o.reduce_budget = Count(r, "reduce_budget");
    o.reduce_time_s =
        r.value("reduce_time_s", FuzzOptions{}.reduce_time_s);  // absent before it existed
    o.known_paths = r.at("known_paths").get<std::vector<std::string>>();
    o.reduce_known = r.at("reduce_known").get<bool>();
    // Absent before it existed: those campaigns ran every stage on every input.
    std::optional<ControlsMode> controls = ParseControlsMode(
        r.value("controls", std::string(ControlsModeName(ControlsMode::kAlways))));
    if (!controls)
      return Status::Error("resume.controls must be \"divergence\" or \"always\", not " +
                           r.at("controls").dump());
    o.controls = *controls;
    o.standalone_check = r.value("standalone_check", true);
    o.ablation = r.value("ablation", true);  // absent before it could be turned off
    o.steer = r.value("steer", false);       // absent before steering
    // Absent before the yield scheduler: coverage steering.
    const nlohmann::json scheduler = r.value("scheduler", nlohmann::json("coverage"));
    if (scheduler != "yield" && scheduler != "coverage" && scheduler != "none")
      return Status::Error("resume.scheduler must be \"yield\", \"coverage\" or \"none\"");
    o.steer_yield = scheduler == "yield";
    if (r.contains("steer_epoch_cases")) o.steer_epoch_cases = Count(r, "steer_epoch_cases");
    o.seed = j.at("seed").get<uint64_t>();
    auto shard = ParseShard(j.at("shard").get<std::string>());
    if (!shard.ok()) return shard.status();
    o.shard = shard.value();
    o.jobs = static_cast<int>(std::min<int64_t>(Count(j, "jobs"), kMaxJobs + 1));
    const auto& budget = j.at("budget");
    o.time_s = budget.at("time_s").is_null() ? std::numeric_limits<double>::infinity()
                                             : budget.at("time_s").get<double>();
    o.max_cases = budget.at("cases").get<int64_t>();
    o.paths = j.at("paths").get<std::vector<std::string>>();
    // Absent before campaigns ran knob variants: none.
    if (j.contains("variants")) o.variants = j.at("variants").get<std::vector<std::string>>();
    if (Status st = CheckFuzzOptions(o); !st.ok())
      return Status::Error("malformed summary: " + st.message());
    s = FuzzSummary{};
    s.cases = Count(j, "cases");
    s.diverging_cases = Count(j, "diverging_cases");
    s.skipped_paths = Count(j, "skipped_paths");
    s.cuda_cases_without_gpu = Count(j, "cuda_cases_without_gpu");
    if (j.contains("profile")) {  // absent before it existed
      auto profile = CampaignProfile::FromJson(j.at("profile"));
      if (!profile.ok()) return Status::Error("malformed summary: " + profile.error());
      s.profile = profile.value();
    }
    auto small_count = [&](const char* key) {
      int64_t n = j.contains(key) ? Count(j, key) : 0;
      if (n > INT32_MAX) throw std::out_of_range(std::string("\"") + key + "\" is too large");
      return static_cast<int>(n);
    };
    s.restarts = small_count("worker_restarts");
    s.recycles = small_count("worker_recycles");
    s.resumes = small_count("resumes");
    s.elapsed_s = j.at("elapsed_s").get<double>();
    if (!(s.elapsed_s >= 0 && s.elapsed_s < 1e12))
      return Status::Error("malformed summary: elapsed_s " + j.at("elapsed_s").dump());
    s.inputs = InputStats::FromJson(j.value("compile", nlohmann::json::object()));
    s.inputs.checked_inputs = j.contains("checked_inputs") ? Count(j, "checked_inputs") : 0;
    if (j.contains("special_values")) {
      const nlohmann::json& sv = j.at("special_values");
      s.inputs.special_inputs = Count(sv, "inputs");
      s.inputs.special_elements = Count(sv, "elements");
      s.inputs.special_unjudged = Count(sv, "unjudged");
      if (sv.contains("ignored_input_reruns"))
        s.inputs.ignored_input_reruns = Count(sv, "ignored_input_reruns");
      if (s.inputs.special_unjudged > s.inputs.special_elements)
        return Status::Error("malformed summary: special_values.unjudged exceeds its elements");
    }
    if (j.contains("worker_faults")) {  // absent before worker faults were told apart
      const nlohmann::json& wf = j.at("worker_faults");
      s.worker_fault_cases = Count(wf, "cases");
      for (const auto& f : wf.at("listed")) {
        if (s.worker_faults.size() >= kMaxWorkerFaultCases) break;
        s.worker_faults.push_back(
            {Count(f, "index"), f.at("seed").get<uint64_t>(), f.at("detail").get<std::string>()});
      }
    }
    // (worker_failure and not_started are not read back: a resumed campaign starts its workers
    // again, and says again if they fail.)
    if (j.contains("rewrites")) {  // absent before pass coverage
      auto rewrites = RewriteCoverage::FromJson(j.at("rewrites"));
      if (!rewrites.ok()) return Status::Error("malformed summary: " + rewrites.error());
      s.rewrites = rewrites.value();
    }
    if (o.steer) {  // checked here, so that a hostile one stops --resume before anything runs
      Steering check(o.seed, o.shard, o.steer_epoch_cases,
                     o.steer_yield ? SteerMode::kYield : SteerMode::kCoverage);
      if (!j.contains("steering")) return Status::Error("malformed summary: no steering state");
      if (Status st = check.FromJson(j.at("steering")); !st.ok())
        return Status::Error("malformed summary: " + st.message());
      s.steering = j.at("steering");
    }
    if (!j.at("buckets").is_array())
      return Status::Error("malformed summary: \"buckets\" must be an array");
    s.done_below = Count(r, "done_below");
    s.done_extra = r.at("done_extra").get<std::vector<int64_t>>();
    // The indices done above done_below, each once: the schedule skips them.
    std::set<int64_t> extra(s.done_extra.begin(), s.done_extra.end());
    if (extra.size() != s.done_extra.size() || (!extra.empty() && *extra.begin() < s.done_below))
      return Status::Error(
          "malformed summary: done_extra must hold distinct indices from done_below");
    for (const auto& b : j.at("buckets")) {
      const std::string hash = b.at("hash").get<std::string>();
      if (!IsHashHex(hash))
        return Status::Error("malformed summary: bucket hash " + b.at("hash").dump() +
                             " is not 16 hex digits");
      BucketStats& bs = s.buckets[hash];
      bs.signature = b.at("signature").get<std::string>();
      bs.headline = b.at("headline").get<std::string>();
      bs.finding_dir = b.at("finding").get<std::string>();
      // A resumed campaign writes and removes finding folders: only its own, findings/<hash>.
      const std::string& dir = bs.finding_dir;
      if (dir.size() != 25 || dir.rfind("findings/", 0) != 0 ||
          dir.find_first_not_of("0123456789abcdef", 9) != std::string::npos)
        return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                             ": \"finding\" must be findings/<16 hex digits>, not " +
                             nlohmann::json(dir).dump());
      bs.count = Count(b, "count");
      bs.first_index = Count(b, "first_index");
      bs.first_seed = b.at("first_seed").get<uint64_t>();
      bs.first_found_s = b.at("first_found_s").get<double>();
      bs.example_seeds = b.at("example_seeds").get<std::vector<uint64_t>>();
      if (b.contains("known")) {
        auto known = KnownRecordFromJson(b["known"]);
        if (!known.ok())
          return Status::Error("malformed summary: bucket " + b.at("hash").dump() + ": " +
                               known.error());
        bs.known = known.value();
      }
      if (b.contains("unclaimed")) {
        auto unclaimed = KnownRecordFromJson(b["unclaimed"]);
        if (!unclaimed.ok())
          return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                               ": \"unclaimed\": " + unclaimed.error());
        bs.unclaimed = unclaimed.value();
      }
      bs.reduced_signature = b.value("reduced_signature", "");
      bs.reduced_headline = b.value("reduced_headline", "");
      bs.folded = b.value("folded_root_cause", "");
      if (!bs.folded.empty() && !IsFoldedRootCause(bs.folded))
        return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                             ": \"folded_root_cause\" is not a folded root cause");
      // The class its report gave; an older summary's, by its root cause.
      bs.root_class = ClassFromFields(b);
      bs.ops_seen = b.value("ops_seen", std::vector<std::string>{});
      if (bs.ops_seen.size() > kMaxOpsSeen)
        return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                             " lists too many ops seen");
      std::sort(bs.ops_seen.begin(), bs.ops_seen.end());
      bs.rewrites = b.value("rewrites", std::vector<std::string>{});
      for (const std::string& name : bs.rewrites)
        if (!ValidRewriteName(name))
          return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                               " lists a rewrite that is not a rewrite name");
      std::sort(bs.rewrites.begin(), bs.rewrites.end());
      bs.first_focus = b.value("first_focus", "");
      if (!bs.first_focus.empty() && !FindFocus(bs.first_focus))
        return Status::Error("malformed summary: bucket " + b.at("hash").dump() +
                             ": \"first_focus\" is not a focus");
      if (b.contains("standalone")) {
        auto rec = StandaloneFromJson(b.at("standalone"));
        if (!rec.ok()) return Status::Error("malformed summary: " + rec.error());
        bs.standalone = rec.value();
      }
    }
  } catch (const std::exception& e) {  // nlohmann's type and key errors, Count's range errors
    return Status::Error(std::string("malformed summary: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace mmdiff
