// Steering toward the unreached: each case of a steered campaign generates with a focus
// (src/gen/focus.h) drawn from odds that follow the campaign's pass coverage, so that the foci
// whose programs reach the rewrites that fired least get more programs.
//
// Reproducible: a shard's cases are cut into epochs of epoch_cases consecutive cases, and a case's
// odds come only from epochs two or more before its own, which must be complete before it starts
// (the campaign waits; with cases much shorter than an epoch it rarely does). So the same seed,
// budget and shard give the same cases whatever the jobs' timing, and a resumed campaign, which
// reads the epochs back from its summary, goes on as if it had never stopped. A steered shard's
// cases follow its own coverage: shards of a steered campaign are not the cases one machine would
// run (without steering they are).
//
// Two schedulers (SteerMode). Coverage steering (above) raises the foci whose programs reach rare
// rewrites and gives a fixed share of each epoch to the target foci while any is open. The yield
// scheduler treats the broad foci, and the target foci's families (Focus::family), as the arms of a
// bandit (src/campaign/yield_bandit.h) rewarded by what each found first per core-second it
// consumed: a bucket filed as a bug counts 1 (the campaign records only those), a rewrite
// kRewriteReward, credited to the epoch that found it first (shared among its foci by their
// programs of it), older epochs discounted by kDiscount each. Its epochs are shorter
// (kYieldEpochCases), so that it reacts within minutes. Its odds follow measured seconds, so a
// rerun of the same seed may choose other foci where the machine's times differ; a resumed campaign
// reads the records back and goes on as if it had never stopped, and every case regenerates from
// its seed and focus.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/campaign/case_schedule.h"
#include "src/campaign/yield_bandit.h"
#include "src/support/rng.h"
#include "src/support/status.h"

namespace mmdiff {

enum class SteerMode { kCoverage, kYield };

// The yield scheduler's arms table of a summary's "steering" section, for people: per arm its
// programs, core-seconds, share of them, and the buckets and rewrites it found first; "" when the
// section has no such table (coverage steering, no steering).
std::string ArmsTableText(const nlohmann::json& steering);

// Whether a target is one the install's listing gates (an attention fusion or a lowering), so
// that it is open only where the listing says this install and CPU can reach it.
bool GatedTarget(const std::string& name);

class Steering {
 public:
  static constexpr int64_t kDefaultEpochCases = 64;
  // Odds: every focus gets at least kFloor, then the campaign's own policy ("as_given") is raised
  // to kAsGiven where it is below it and the others scaled to share the rest; a focus with fewer
  // than kExplore programs so far counts as the best one (it is tried first).
  static constexpr double kFloor = 0.04, kAsGiven = 0.25;
  static constexpr int64_t kExplore = 8;
  // The target foci (one fusion or lowering each, src/gen/fusion_targets.h and
  // deployment_targets.h) have case slots while any is open: its target reachable with the
  // installed torch on this CPU (SetReachableTargets), not reached yet by any program, and fewer
  // than kTargetTries programs of its own. Each epoch gives up to kTargets of
  // its cases, one each, to the open targets with the fewest programs (breadth first; those whose
  // slot in the epoch before is still unread come last), at positions drawn from the seed: a target
  // with a slot has its program for certain. The broad foci draw the other cases as above.
  static constexpr double kTargets = 0.4;
  static constexpr int64_t kTargetTries = 3;
  // Attention fusions and lowerings an install can reach: a listing longer than this is an error.
  static constexpr size_t kMaxReachableTargets = 2000;
  // The yield scheduler's epochs, the weight of a new rewrite against a new bucket's 1, and the
  // weight of an epoch's records against the next one's.
  static constexpr int64_t kYieldEpochCases = 16;
  static constexpr double kRewriteReward = 0.2, kDiscount = 0.9;
  // A case's core-seconds are counted up to this (a summary's focus records up to kMaxSpendS
  // times a trillion).
  static constexpr double kMaxSpendS = 1e6;

  Steering(uint64_t seed, Shard shard, int64_t epoch_cases = kDefaultEpochCases,
           SteerMode mode = SteerMode::kCoverage);

  SteerMode mode() const { return mode_; }

  int64_t epoch_cases() const { return epoch_cases_; }
  // The epoch of one of the shard's case indices.
  int64_t EpochOf(int64_t index) const;
  // Whether case `index` may start: every case of the shard's epochs up to EpochOf(index) - 2
  // (below the budget max_cases; -1: none) is done, given that all below done_below are.
  bool Ready(int64_t index, int64_t done_below, int64_t max_cases) const;
  // The focus case `index` generates with: drawn with the odds of its epoch from a stream of its
  // own (seed, index), so it does not disturb the program's draws.
  size_t FocusOf(int64_t index) const;
  // The odds of each focus (Foci() order) in `epoch`, from the programs of epochs up to epoch - 2:
  // a broad focus's yield is its share of every rewrite's programs summed and divided by its
  // programs, so that a focus that alone reaches a rare rewrite outweighs one that reaches common
  // ones often; a target focus's is its slots' share of the epoch (1 / epoch_cases or 0).
  std::vector<double> Odds(int64_t epoch) const;
  // The target focus of each slot of `epoch`, by position in the epoch (0 to epoch_cases - 1).
  const std::map<int64_t, size_t>& Slots(int64_t epoch) const;
  // The attention fusions (_sfdp_pattern_N_...) the installed torch registers and the lowerings
  // ("lowering:...") a program can get from it on this CPU (the catalogues give them no note): a
  // target focus of another fusion or lowering is never open (releases differ: 2.11.0 has
  // training forms 2.15.0 dropped; CPUs differ: AVX-512 and AMX micro-kernels). Until this is
  // called every target can be; a resumed campaign reads the set back from its summary. Targets
  // of other kinds (a freezing pass, post_grad.addmm) are always open until reached.
  void SetReachableTargets(std::set<std::string> names);
  // A done case: its focus, the rewrites its compiled runs reached, the core-seconds it took
  // (generating, running and judging its inputs; not the work on its findings) and the buckets of
  // its findings (their hashes).
  void Record(int64_t index, size_t focus, const std::set<std::string>& rewrites,
              double spend_s = 0, const std::vector<std::string>& buckets = {});
  // Programs per focus over all epochs, for the summary's table.
  std::vector<int64_t> ProgramsPerFocus() const;

  // The yield scheduler's arms: the broad foci (Foci() order), then the target foci's families
  // (Focus::family: "rewrite_targets", "deployment_targets").
  static const std::vector<std::string>& ArmNames();
  static size_t ArmOf(size_t focus);
  // The arms' records as the plan of `epoch` reads them: epochs up to epoch - 2, each weighted by
  // kDiscount per epoch before epoch - 2 (discounted) or 1 (for the summary's table).
  std::vector<ArmStats> ArmRecords(int64_t epoch, bool discounted) const;
  // The yield scheduler's share of the spend per arm in `epoch` (ArmNames() order); empty for
  // coverage steering.
  std::vector<double> SpendShares(int64_t epoch) const;

  // summary.json's "steering" section; FromJson checks everything (a hostile summary is an error)
  // and needs the same epoch_cases, which the options carry.
  nlohmann::json ToJson() const;
  Status FromJson(const nlohmann::json& j);

 private:
  // Whether a target is one the install can reach here (or of a kind the listing does not gate,
  // or the listing is unknown).
  bool Reachable(const std::string& target) const;
  struct FocusStats {
    int64_t programs = 0;
    std::map<std::string, int64_t> rewrites;  // programs that reached each
    double spend_s = 0;                       // the yield scheduler's records
    std::map<std::string, int64_t> buckets;   // programs that found each
  };
  uint64_t seed_;
  Shard shard_;
  int64_t epoch_cases_;
  SteerMode mode_;
  std::map<int64_t, std::vector<FocusStats>> epochs_;  // per epoch, per focus
  std::optional<std::set<std::string>> reachable_;     // SetReachableTargets; none: unknown
  struct Plan {
    std::vector<double> odds;         // Odds(epoch)
    std::map<int64_t, size_t> slots;  // Slots(epoch)
    std::vector<double> arm_spend;    // SpendShares(epoch)
  };
  // A focus's "spend_s" and "buckets" in a yield scheduler's summary into `st` (whose programs are
  // read), or an error.
  static Status YieldRecordFromJson(const std::string& focus, const nlohmann::json& j,
                                    FocusStats& st);
  // The summary's table of arms: per arm its programs, core-seconds and their share, the buckets
  // and rewrites it found first, over the whole campaign.
  nlohmann::json ArmsTable() const;
  // The yield scheduler's part of `epoch`'s plan: its spend shares and the broad foci's odds, from
  // the bandit; returns the open targets (in the order their slots are given) that get a slot,
  // the first of `open`, drawn from `rng`.
  std::vector<size_t> PlanYield(int64_t epoch, std::vector<size_t> open, Rng& rng,
                                Plan& plan) const;
  // An epoch's plan, from the records of epochs up to epoch - 2 and the slots of epoch - 1 (each
  // counts as a program of its target, not read yet).
  Plan MakePlan(int64_t epoch, const Plan* before) const;
  const Plan& PlanOf(int64_t epoch) const;
  // The plans as computed, per epoch: every case of an epoch follows the same plan, which changes
  // only when an epoch two or more before it gets a record.
  mutable std::map<int64_t, Plan> plans_;
};

}  // namespace mmdiff
