// Steering's epochs, odds and summary section.
#include "src/campaign/steering.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "oracles/attention_fusion.h"
#include "src/gen/focus.h"
#include "src/ir/outcome.h"
#include "src/report/rewrite_coverage.h"
#include "src/support/rng.h"

namespace mmdiff {

namespace {

// Keeps a hostile summary's numbers in range: counts up to a trillion, epochs up to a billion.
constexpr int64_t kMaxCount = 1'000'000'000'000;
constexpr int64_t kMaxEpoch = 1'000'000'000;
// Salts of the focus stream (another stream than the program's, seed + index) and of the slots'.
constexpr uint64_t kFocusSalt = 0x5EE7'F0C5'0000'0001ULL;
constexpr uint64_t kSlotSalt = 0x5EE7'F0C5'0000'0002ULL;

bool CountIn(const nlohmann::json& v, int64_t hi) {
  return v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= hi;
}

// The broad foci's odds, from their programs and the rewrites they reached, sharing 1 - targets
// (the slots' share of the epoch); the targets' are left at 0.
std::vector<double> BroadOdds(const std::vector<int64_t>& programs,
                              const std::map<std::string, std::vector<int64_t>>& hits,
                              double targets) {
  const size_t n = Foci().size();
  std::vector<size_t> broad;  // those aimed at rewrites
  for (size_t f = 0; f < n; ++f)
    if (Foci()[f].target.empty() && Foci()[f].for_rewrites) broad.push_back(f);
  std::vector<double> yield(n, 0.0);
  for (const auto& [r, row] : hits) {
    const double total = static_cast<double>(std::accumulate(row.begin(), row.end(), int64_t{0}));
    for (size_t f : broad)
      if (programs[f] > 0) yield[f] += static_cast<double>(row[f]) / total;
  }
  double best = 0;
  for (size_t f : broad) {
    if (programs[f] > 0) yield[f] /= static_cast<double>(programs[f]);
    best = std::max(best, yield[f]);
  }
  if (best == 0) best = 1;
  double sum = 0;
  for (size_t f : broad) {
    if (programs[f] < Steering::kExplore) yield[f] = best;
    sum += yield[f];
  }
  // No rewrite reached yet (or none ever: a campaign steered without inductor): every broad focus
  // alike.
  if (sum == 0) {
    for (size_t f : broad) yield[f] = 1;
    sum = static_cast<double>(broad.size());
  }
  const double nb = static_cast<double>(broad.size());
  std::vector<double> odds(n, 0.0);
  for (size_t f : broad) odds[f] = Steering::kFloor + (1 - Steering::kFloor * nb) * yield[f] / sum;
  for (size_t f : broad) odds[f] *= 1 - targets;
  if (odds[0] < Steering::kAsGiven) {  // the campaign's own policy keeps its share
    double rest = 0;
    for (size_t f : broad) rest += f == 0 ? 0 : odds[f];
    for (size_t f : broad)
      if (f != 0) odds[f] *= (1 - targets - Steering::kAsGiven) / rest;
    odds[0] = Steering::kAsGiven;
  }
  return odds;
}

// The slots of `targets` at free positions of an epoch of `epoch_cases`, drawn by `rng`.
void PlaceSlots(const std::vector<size_t>& targets, int64_t epoch_cases, Rng& rng,
                std::map<int64_t, size_t>& slots) {
  for (size_t f : targets) {
    int64_t position;
    do position = rng.UniformInt(0, epoch_cases - 1);
    while (slots.count(position));
    slots[position] = f;
  }
}

}  // namespace

Steering::Steering(uint64_t seed, Shard shard, int64_t epoch_cases, SteerMode mode)
    : seed_(seed), shard_(shard), epoch_cases_(std::max<int64_t>(epoch_cases, 1)), mode_(mode) {}

int64_t Steering::EpochOf(int64_t index) const {
  return (index - shard_.index) / shard_.count / epoch_cases_;
}

bool Steering::Ready(int64_t index, int64_t done_below, int64_t max_cases) const {
  const int64_t epoch = EpochOf(index);
  if (epoch < 2) return true;
  // The shard's first case index of epoch - 1: all before it must be done.
  int64_t needed = shard_.index + (epoch - 1) * epoch_cases_ * shard_.count;
  if (max_cases >= 0 && max_cases < needed) needed = max_cases;
  return done_below >= needed;
}

size_t Steering::FocusOf(int64_t index) const {
  const Plan& plan = PlanOf(EpochOf(index));
  const int64_t position = (index - shard_.index) / shard_.count % epoch_cases_;
  if (auto slot = plan.slots.find(position); slot != plan.slots.end()) return slot->second;
  // The other cases draw a broad focus.
  double total = 0;
  size_t last = 0;
  for (size_t f = 0; f < plan.odds.size(); ++f)
    if (Foci()[f].target.empty() && plan.odds[f] > 0) total += plan.odds[f], last = f;
  Rng rng(SplitMix64(seed_ ^ kFocusSalt) + static_cast<uint64_t>(index));
  double u = rng.UniformDouble() * total;
  for (size_t f = 0; f < plan.odds.size(); ++f) {
    if (!Foci()[f].target.empty()) continue;
    if (u < plan.odds[f]) return f;
    u -= plan.odds[f];
  }
  return last;
}

std::vector<double> Steering::Odds(int64_t epoch) const { return PlanOf(epoch).odds; }

const std::map<int64_t, size_t>& Steering::Slots(int64_t epoch) const {
  return PlanOf(epoch).slots;
}

const Steering::Plan& Steering::PlanOf(int64_t epoch) const {
  if (auto known = plans_.find(epoch); known != plans_.end()) return known->second;
  // Each plan needs the one before it: make the missing ones from the last one known.
  int64_t from = epoch;
  while (from > 0 && !plans_.count(from - 1)) --from;
  for (int64_t e = from; e <= epoch; ++e) {
    auto before = plans_.find(e - 1);
    plans_[e] = MakePlan(e, before == plans_.end() ? nullptr : &before->second);
  }
  return plans_.at(epoch);
}

Steering::Plan Steering::MakePlan(int64_t epoch, const Plan* before) const {
  const size_t n = Foci().size();
  std::vector<int64_t> programs(n, 0);
  std::map<std::string, std::vector<int64_t>> hits;  // rewrite -> programs per focus
  for (const auto& [e, foci] : epochs_) {
    if (e > epoch - 2) break;
    for (size_t f = 0; f < n && f < foci.size(); ++f) {
      programs[f] += foci[f].programs;
      for (const auto& [r, k] : foci[f].rewrites) {
        auto& row = hits[r];
        row.resize(n, 0);
        row[f] += k;
      }
    }
  }
  // A slot of the epoch before is a program of its target, whose record is not read yet.
  std::vector<bool> unread(n, false);
  if (before)
    for (const auto& [position, f] : before->slots) unread[f] = true, ++programs[f];
  std::vector<size_t> open;
  for (size_t f = 0; f < n; ++f) {
    const std::string& target = Foci()[f].target;
    if (!target.empty() && !hits.count(target) && programs[f] < kTargetTries && Reachable(target))
      open.push_back(f);
  }
  // Breadth first: only the open targets with the fewest programs so far, so that every target
  // has its first try before any has a second (most reach their fusion at the first); for the
  // yield scheduler, whose target arms each have a share of their own, per arm.
  auto group = [&](size_t f) { return mode_ == SteerMode::kYield ? ArmOf(f) : 0; };
  std::map<size_t, int64_t> fewest;
  for (size_t f : open) {
    auto [it, added] = fewest.try_emplace(group(f), programs[f]);
    it->second = std::min(it->second, programs[f]);
  }
  open.erase(std::remove_if(open.begin(), open.end(),
                            [&](size_t f) { return programs[f] > fewest.at(group(f)); }),
             open.end());
  // More of them than slots: a draw from the seed, those read already first.
  const int64_t max_slots =
      std::max<int64_t>(1, static_cast<int64_t>(kTargets * static_cast<double>(epoch_cases_)));
  Rng rng(SplitMix64(seed_ ^ kSlotSalt ^ static_cast<uint64_t>(shard_.index)) +
          static_cast<uint64_t>(epoch));
  for (size_t i = open.size(); i > 1; --i)
    std::swap(open[i - 1],
              open[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(i) - 1))]);
  std::stable_partition(open.begin(), open.end(), [&](size_t f) { return !unread[f]; });
  Plan plan;
  if (mode_ == SteerMode::kYield)
    open = PlanYield(epoch, std::move(open), rng, plan);
  else if (static_cast<int64_t>(open.size()) > max_slots)
    open.resize(static_cast<size_t>(max_slots));
  PlaceSlots(open, epoch_cases_, rng, plan.slots);
  const double per_slot = 1.0 / static_cast<double>(epoch_cases_);
  if (mode_ != SteerMode::kYield)
    plan.odds = BroadOdds(programs, hits, per_slot * static_cast<double>(plan.slots.size()));
  for (size_t f : open) plan.odds[f] = per_slot;
  return plan;
}

void Steering::SetReachableTargets(std::set<std::string> names) {
  reachable_ = std::move(names);
  plans_.clear();
}

bool GatedTarget(const std::string& name) {
  return !AttentionFusionPattern(name).empty() || name.starts_with(kLoweringPrefix);
}

bool Steering::Reachable(const std::string& target) const {
  return !reachable_ || !GatedTarget(target) || reachable_->count(target) > 0;
}

void Steering::Record(int64_t index, size_t focus, const std::set<std::string>& rewrites,
                      double spend_s, const std::vector<std::string>& buckets) {
  const int64_t epoch = EpochOf(index);
  plans_.erase(plans_.lower_bound(epoch + 2), plans_.end());  // their plans read this epoch
  auto& foci = epochs_[epoch];
  foci.resize(Foci().size());
  FocusStats& s = foci.at(focus);
  ++s.programs;
  for (const auto& r : rewrites) ++s.rewrites[r];
  if (mode_ != SteerMode::kYield) return;
  if (std::isfinite(spend_s) && spend_s > 0) s.spend_s += std::min(spend_s, kMaxSpendS);
  for (const auto& b : std::set<std::string>(buckets.begin(), buckets.end())) ++s.buckets[b];
}

std::vector<int64_t> Steering::ProgramsPerFocus() const {
  std::vector<int64_t> out(Foci().size(), 0);
  for (const auto& [e, foci] : epochs_)
    for (size_t f = 0; f < foci.size(); ++f) out[f] += foci[f].programs;
  return out;
}

nlohmann::json Steering::ToJson() const {
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& [e, foci] : epochs_) {
    nlohmann::json by_focus = nlohmann::json::object();
    for (size_t f = 0; f < foci.size(); ++f) {
      if (foci[f].programs == 0) continue;
      nlohmann::json& out = by_focus[std::string(Foci()[f].name)];
      out = {{"programs", foci[f].programs}, {"rewrites", foci[f].rewrites}};
      if (mode_ == SteerMode::kYield) {
        out["spend_s"] = foci[f].spend_s;
        out["buckets"] = foci[f].buckets;
      }
    }
    epochs.push_back({{"epoch", e}, {"foci", by_focus}});
  }
  nlohmann::json out = {{"epoch_cases", epoch_cases_}, {"epochs", epochs}};
  if (reachable_) out["reachable_targets"] = *reachable_;
  if (mode_ == SteerMode::kYield) {
    out["scheduler"] = "yield";
    out["arms"] = ArmsTable();
  }
  return out;
}

Status Steering::FromJson(const nlohmann::json& j) {
  auto bad = [](const std::string& what) { return Status::Error("steering: " + what); };
  if (!j.is_object() || !j.contains("epoch_cases") || !j.contains("epochs") ||
      !j.at("epochs").is_array())
    return bad("must be an object with \"epoch_cases\" and an \"epochs\" array");
  if (!CountIn(j.at("epoch_cases"), kMaxEpoch) ||
      j.at("epoch_cases").get<int64_t>() != epoch_cases_)
    return bad("\"epoch_cases\" is not this campaign's " + std::to_string(epoch_cases_));
  const bool yield = j.value("scheduler", nlohmann::json("coverage")) == "yield";
  if (yield != (mode_ == SteerMode::kYield))
    return bad(std::string("\"scheduler\" is not this campaign's ") +
               (mode_ == SteerMode::kYield ? "\"yield\"" : "\"coverage\""));
  std::map<int64_t, std::vector<FocusStats>> epochs;
  for (const auto& e : j.at("epochs")) {
    if (!e.is_object() || !e.contains("epoch") || !CountIn(e.at("epoch"), kMaxEpoch) ||
        !e.contains("foci") || !e.at("foci").is_object())
      return bad("an epoch must be {\"epoch\": a count, \"foci\": {...}}");
    const int64_t epoch = e.at("epoch").get<int64_t>();
    if (epochs.count(epoch)) return bad("epoch " + std::to_string(epoch) + " twice");
    auto& foci = epochs[epoch];
    foci.resize(Foci().size());
    for (const auto& [name, s] : e.at("foci").items()) {
      auto f = FindFocus(name);
      if (!f) return bad("unknown focus" + (ValidRewriteName(name) ? " \"" + name + "\"" : ""));
      if (!s.is_object() || !s.contains("programs") || !CountIn(s.at("programs"), kMaxCount) ||
          !s.contains("rewrites") || !s.at("rewrites").is_object())
        return bad("focus " + name + " must be {\"programs\": a count, \"rewrites\": {...}}");
      FocusStats& st = foci[*f];
      st.programs = s.at("programs").get<int64_t>();
      for (const auto& [r, k] : s.at("rewrites").items()) {
        if (!ValidRewriteName(r)) return bad("a rewrite name that is not one");
        if (!CountIn(k, st.programs))
          return bad("rewrite " + r + ": its programs must be a count up to the focus's");
        st.rewrites[r] = k.get<int64_t>();
      }
      if (yield) {
        if (Status ys = YieldRecordFromJson(name, s, st); !ys.ok()) return bad(ys.message());
      } else if (s.contains("spend_s") || s.contains("buckets")) {
        return bad("focus " + name + ": \"spend_s\" and \"buckets\" are the yield scheduler's");
      }
    }
  }
  // "reachable_targets"; a summary written before the lowering targets names its attention
  // fusions "installed_fusions"; neither where the listing was unknown.
  std::optional<std::set<std::string>> reachable;
  const char* key = j.contains("reachable_targets")   ? "reachable_targets"
                    : j.contains("installed_fusions") ? "installed_fusions"
                                                      : nullptr;
  if (key) {
    const nlohmann::json& names = j.at(key);
    if (!names.is_array() || names.size() > kMaxReachableTargets)
      return bad(std::string("\"") + key + "\" must be an array of up to " +
                 std::to_string(kMaxReachableTargets) + " names");
    reachable.emplace();
    for (const auto& n : names) {
      if (!n.is_string() || !ValidRewriteName(n.get<std::string>()) ||
          !GatedTarget(n.get<std::string>()))
        return bad(std::string("\"") + key +
                   "\" holds a name that is neither an attention fusion's nor a lowering's");
      reachable->insert(n.get<std::string>());
    }
  }
  epochs_ = std::move(epochs);
  reachable_ = std::move(reachable);
  plans_.clear();
  return Status::Ok();
}

}  // namespace mmdiff
