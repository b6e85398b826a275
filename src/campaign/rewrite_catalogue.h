// The rewrites of a torch install (`mmdiff rewrites`): every pattern-matcher entry and matmul
// decomposition Inductor has, listed by src/ir/python/inductor_rewrites.py in that install's
// Python and named as the worker names those that fire, and the lowerings a product can get on
// this CPU (src/ir/python/inductor_lowerings.py); and which of the matmul/attention family
// campaigns never reached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/report/rewrite_coverage.h"
#include "src/support/status.h"

namespace mmdiff {

inline constexpr const char* kKernelKind = "kernel";

struct CatalogueRewrite {
  std::string name;
  // "replacement", "graph", "lowering" or "decomposition"; kKernelKind for a lowering a product
  // gets (src/ir/python/inductor_lowerings.py: ATen call, packed linear, template, micro-kernel)
  std::string kind;
  bool family = false;  // touches a matmul, softmax or attention op, or a joint-graph cast/view
  std::vector<std::string> ops;  // the ops its pattern holds
  std::string note;  // why a program cannot reach it on a CPU with the default config; "" if it can
};

// The catalogue as the script wrote it (JSON: an array of {name, kind, family, ops, note}); an
// error names the entry and field that is wrong.
Result<std::vector<CatalogueRewrite>> ParseRewriteCatalogue(const std::string& text);

// What to list: every rewrite and lowering (after two compiles, which register Inductor's lazy
// passes: about 20 s), or what a steered campaign's target foci need: the attention fusions, which
// fuse_attention registers without a compile, and the lowerings (a few seconds, most of it
// importing torch).
enum class CatalogueScope { kAll, kSteeringTargets };

// Runs the catalogue script in `python` (a venv's interpreter) with a time limit; the error says
// what failed, with the last line the script printed.
Result<std::vector<CatalogueRewrite>> ListInstalledRewrites(
    const std::string& python, double timeout_s, CatalogueScope scope = CatalogueScope::kAll);

// The family's rewrites and lowerings as lines for people: a count line for each, those never
// reached (each with its note), then, with `all`, the reached ones with their programs.
std::string UnreachedReport(const std::vector<CatalogueRewrite>& catalogue,
                            const RewriteCoverage& reached, int64_t programs, bool all);

}  // namespace mmdiff
