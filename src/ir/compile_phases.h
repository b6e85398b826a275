// CompilePhases: where a compiled path's call spent its seconds, as the worker reports it.
#pragma once

#include <nlohmann/json.hpp>
#include <span>

#include "src/support/status.h"

namespace mmdiff {

// Where a compiled call's seconds went, by torch's own compile timers: Dynamo's trace and guards,
// AOTAutograd, Inductor's lowering, its code generation, the C++ compiler, the rest of Inductor
// (graph passes, loading the module), and running the compiled code. The parts do not overlap
// (_mmdiff_phases in src/backends/python/worker_helpers.py splits them).
struct CompilePhases {
  double dynamo = 0, aot_autograd = 0, inductor_lowering = 0, inductor_codegen = 0, cpp_compile = 0,
         inductor_other = 0, run = 0;
  CompilePhases& operator+=(const CompilePhases& o);
};
// Each part's name ("dynamo", ...) and member, in the order above.
struct CompilePhaseField {
  const char* name;
  double CompilePhases::* seconds;
};
std::span<const CompilePhaseField> CompilePhaseFields();
// {"dynamo": s, ...}; and back: every part a finite number >= 0, no other key, or an error.
nlohmann::json CompilePhasesToJson(const CompilePhases& p);
Result<CompilePhases> CompilePhasesFromJson(const nlohmann::json& j);

}  // namespace mmdiff
