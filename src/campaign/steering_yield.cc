// The yield scheduler's part of steering: its arms, their records with first finds credited and
// old epochs discounted, an epoch's plan from the bandit's shares, and its summary fields.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/campaign/steering.h"
#include "src/gen/focus.h"
#include "src/support/hash.h"

namespace mmdiff {

namespace {

constexpr uint64_t kBanditSalt = 0x5EE7'F0C5'0000'0003ULL;
constexpr double kMaxFocusSpendS = Steering::kMaxSpendS * 1e12;

// The arms' names, and each focus's arm (Foci() order): the broad foci in order, then the target
// foci's families (Focus::family) in the order they first come.
struct Arms {
  std::vector<std::string> names;
  std::vector<size_t> of_focus;
  size_t broad = 0;  // the arms below this are the broad foci's
};
const Arms& TheArms() {
  static const Arms kArms = [] {
    Arms a;
    for (const Focus& f : Foci())
      if (f.target.empty()) a.names.push_back(f.name);
    a.broad = a.names.size();
    size_t broad = 0;
    for (const Focus& f : Foci()) {
      if (f.target.empty()) {
        a.of_focus.push_back(broad++);
        continue;
      }
      auto it = std::find(a.names.begin() + static_cast<std::ptrdiff_t>(a.broad), a.names.end(),
                          f.family);
      a.of_focus.push_back(static_cast<size_t>(it - a.names.begin()));
      if (it == a.names.end()) a.names.push_back(f.family);
    }
    return a;
  }();
  return kArms;
}

// Adds each focus's share of the keys no epoch before found (`seen`) to `credit`, and marks them
// seen: a key first found by several foci in one epoch is shared among
// them by their programs of it.
using Counts = std::map<std::string, int64_t>;
void CreditFirsts(const std::vector<const Counts*>& by_focus, std::set<std::string>& seen,
                  std::vector<double>& credit) {
  std::map<std::string, double> total;
  for (const auto* m : by_focus)
    for (const auto& [key, k] : *m)
      if (!seen.count(key)) total[key] += static_cast<double>(k);
  for (size_t f = 0; f < by_focus.size(); ++f)
    for (const auto& [key, k] : *by_focus[f])
      if (auto t = total.find(key); t != total.end() && t->second > 0)
        credit[f] += static_cast<double>(k) / t->second;
  for (const auto& [key, t] : total) seen.insert(key);
}

}  // namespace

const std::vector<std::string>& Steering::ArmNames() { return TheArms().names; }

size_t Steering::ArmOf(size_t focus) { return TheArms().of_focus.at(focus); }

std::vector<ArmStats> Steering::ArmRecords(int64_t epoch, bool discounted) const {
  std::vector<ArmStats> arms(ArmNames().size());
  std::set<std::string> seen_buckets, seen_rewrites;
  for (auto& [e, foci] : epochs_) {
    if (e > epoch - 2) break;
    const double w = discounted ? std::pow(kDiscount, static_cast<double>(epoch - 2 - e)) : 1.0;
    std::vector<const Counts*> buckets, rewrites;
    for (const FocusStats& s : foci) {
      buckets.push_back(&s.buckets);
      rewrites.push_back(&s.rewrites);
    }
    std::vector<double> new_buckets(foci.size(), 0.0), new_rewrites(foci.size(), 0.0);
    CreditFirsts(buckets, seen_buckets, new_buckets);
    CreditFirsts(rewrites, seen_rewrites, new_rewrites);
    for (size_t f = 0; f < foci.size(); ++f) {
      ArmStats& a = arms[ArmOf(f)];
      a.programs += w * static_cast<double>(foci[f].programs);
      a.spend_s += w * foci[f].spend_s;
      a.buckets += w * new_buckets[f];
      a.rewrites += w * new_rewrites[f];
    }
  }
  for (ArmStats& a : arms) a.reward = a.buckets + kRewriteReward * a.rewrites;
  return arms;
}

std::vector<double> Steering::SpendShares(int64_t epoch) const { return PlanOf(epoch).arm_spend; }

std::vector<size_t> Steering::PlanYield(int64_t epoch, std::vector<size_t> open, Rng& rng,
                                        Plan& plan) const {
  const size_t arms = ArmNames().size(), first_target = TheArms().broad;
  std::vector<bool> live(arms, false);
  std::fill(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(first_target), true);
  for (size_t f : open) live[ArmOf(f)] = true;
  const ArmShares shares =
      YieldBandit::Shares(ArmRecords(epoch, true), live,
                          SplitMix64(seed_ ^ kBanditSalt ^ static_cast<uint64_t>(shard_.index)) +
                              static_cast<uint64_t>(epoch));
  plan.arm_spend = shares.spend;
  // Each target arm's cases, rounded at random to slots: one per open target of the arm, the
  // first ones in `open`'s order.
  std::vector<size_t> slots(arms, 0);
  double targets = 0;
  for (size_t a = first_target; a < arms; ++a) {
    const double want = shares.cases[a] * static_cast<double>(epoch_cases_);
    const double whole = std::floor(want);
    slots[a] = static_cast<size_t>(whole) + (rng.UniformDouble() < want - whole ? 1 : 0);
    targets += shares.cases[a];
  }
  std::vector<size_t> chosen;
  for (size_t f : open)
    if (slots[ArmOf(f)] > 0) --slots[ArmOf(f)], chosen.push_back(f);
  const double rest = 1 - static_cast<double>(chosen.size()) / static_cast<double>(epoch_cases_);
  const double broad = 1 - targets;
  plan.odds.assign(Foci().size(), 0.0);
  for (size_t f = 0; f < Foci().size(); ++f)
    if (Foci()[f].target.empty() && broad > 0) plan.odds[f] = rest * shares.cases[ArmOf(f)] / broad;
  return chosen;
}

Status Steering::YieldRecordFromJson(const std::string& focus, const nlohmann::json& j,
                                     FocusStats& st) {
  const std::string where = "focus " + focus + ": ";
  if (!j.contains("spend_s") || !j.at("spend_s").is_number() ||
      !std::isfinite(j.at("spend_s").get<double>()) || j.at("spend_s").get<double>() < 0 ||
      j.at("spend_s").get<double>() > kMaxFocusSpendS)
    return Status::Error(where + "\"spend_s\" must be a number of seconds");
  if (!j.contains("buckets") || !j.at("buckets").is_object())
    return Status::Error(where + "\"buckets\" must be an object");
  st.spend_s = j.at("spend_s").get<double>();
  for (const auto& [b, k] : j.at("buckets").items()) {
    if (!IsHashHex(b)) return Status::Error(where + "a bucket that is not a bucket's hash");
    if (!k.is_number_integer() || k.get<int64_t>() < 1 || k.get<int64_t>() > st.programs)
      return Status::Error(where + "bucket " + b +
                           ": its programs must be a count up to the focus's");
    st.buckets[b] = k.get<int64_t>();
  }
  return Status::Ok();
}

std::string ArmsTableText(const nlohmann::json& steering) {
  if (!steering.is_object() || !steering.contains("arms") || !steering.at("arms").is_array())
    return "";
  auto number = [](const nlohmann::json& row, const char* key) {
    return row.contains(key) && row.at(key).is_number() ? row.at(key).get<double>() : 0.0;
  };
  std::string out = "arm                   programs    core-s   share   filed bugs   rewrites\n";
  for (const auto& row : steering.at("arms")) {
    if (!row.is_object() || !row.contains("arm") || !row.at("arm").is_string()) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%-20.20s %9.0f %9.0f %6.1f %% %12.1f %10.1f\n",
                  row.at("arm").get<std::string>().c_str(), number(row, "programs"),
                  number(row, "spend_s"), 100 * number(row, "spend_share"),
                  number(row, "new_buckets"), number(row, "new_rewrites"));
    out += line;
  }
  return out;
}

nlohmann::json Steering::ArmsTable() const {
  const int64_t last = epochs_.empty() ? 0 : epochs_.rbegin()->first;
  const std::vector<ArmStats> arms = ArmRecords(last + 2, false);
  double spend = 0;
  for (const ArmStats& a : arms) spend += a.spend_s;
  nlohmann::json table = nlohmann::json::array();
  for (size_t a = 0; a < arms.size(); ++a)
    table.push_back({{"arm", ArmNames()[a]},
                     {"programs", static_cast<int64_t>(arms[a].programs)},
                     {"spend_s", arms[a].spend_s},
                     {"spend_share", spend > 0 ? arms[a].spend_s / spend : 0.0},
                     {"new_buckets", arms[a].buckets},
                     {"new_rewrites", arms[a].rewrites}});
  return table;
}

}  // namespace mmdiff
