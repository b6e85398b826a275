// Generation statistics: how often each op, dtype, dtype pairing, device, layout feature, value
// class, training, model (weights by role and dtype), autocast, attention spelling and cast appears
// in N generated programs (`mmdiff gen --stats N`).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "src/gen/policy.h"

namespace mmdiff {

struct GenStats {
  int64_t programs = 0;
  int64_t nodes = 0;
  // Category ("op", "dtype", "dtype_pairing", "device", "layout", "value_class", "training",
  // "model", "autocast", "attention", "cast", "program") -> feature -> number of programs in which
  // it appears at least once.
  std::map<std::string, std::map<std::string, int64_t>> programs_with;
};

// Programs for seeds first_seed .. first_seed + n - 1.
GenStats CollectStats(const GenPolicy& policy, uint64_t first_seed, int64_t n);
nlohmann::json StatsToJson(const GenStats& s);
std::string StatsToText(const GenStats& s);

}  // namespace mmdiff
