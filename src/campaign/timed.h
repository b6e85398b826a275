// Timed: a campaign step's seconds into its part of the profile, less the seconds its supervisor
// spent starting workers meanwhile, which go to the profile's worker starts.
#pragma once

#include <algorithm>
#include <chrono>

#include "src/campaign/campaign_profile.h"
#include "src/exec/supervisor.h"

namespace mmdiff {

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Runs fn, adding its seconds to `part` of `prof`, less the seconds `sup` spent starting workers
// meanwhile, which go to the profile's worker starts.
template <class F>
auto Timed(Supervisor& sup, CampaignProfile& prof, double CampaignProfile::* part, F&& fn) {
  auto start = std::chrono::steady_clock::now();
  double starts_s = sup.start_seconds();
  int starts = sup.starts();
  struct Account {
    Supervisor& sup;
    CampaignProfile& prof;
    double CampaignProfile::* part;
    std::chrono::steady_clock::time_point start;
    double starts_s;
    int starts;
    ~Account() {
      double in_starts = sup.start_seconds() - starts_s;
      prof.*part += std::max(SecondsSince(start) - in_starts, 0.0);
      prof.worker_start_s += in_starts;
      prof.worker_starts += sup.starts() - starts;
    }
  } account{sup, prof, part, start, starts_s, starts};
  return fn();
}

}  // namespace mmdiff
