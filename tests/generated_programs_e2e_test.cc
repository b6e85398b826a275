// Every generated program runs through the reference and the cpu/meta eager paths without mmdiff
// itself crashing: whatever torch raises is data (an error outcome), never a dead worker.
#include <gtest/gtest.h>

#include "src/exec/supervisor.h"
#include "src/gen/generator.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

TEST(GeneratedProgramsE2E, CpuAndMetaProgramsNeverKillTheWorker) {
  SupervisorOptions o;
  o.worker_binary = e2e::WorkerBinary();
  o.stage_timeout_s = 60;
  o.log_path = e2e::ScratchDir("generated") + "/worker.log";
  Supervisor sup(o);
  ASSERT_TRUE(sup.Hello().ok());
  GenPolicy policy;  // the default space (attention, integers, moves, value classes), minus cuda
  policy.p_cuda = 0;
  policy.p_meta = 0.5;
  policy.p_device_mismatch = 0.1;
  policy.p_shape_violation = 0.1;
  int ok = 0, errors = 0, meta_programs = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    GeneratedCase c = GenerateCaseFromSeed(seed, policy);
    const Program& p = c.program;
    meta_programs += p.inputs[0].device == Device::kMeta;
    for (const PathResult& r : sup.Run(p, c.recipe, {"reference", "eager"})) {
      ASSERT_NE(r.kind, OutcomeKind::kCrash)
          << "seed " << seed << " " << r.path << ": " << r.message;
      ASSERT_NE(r.kind, OutcomeKind::kTimeout) << "seed " << seed << " " << r.path;
      ok += r.kind == OutcomeKind::kOk;
      errors += r.kind == OutcomeKind::kError;
    }
  }
  EXPECT_EQ(sup.restarts(), 0);
  EXPECT_GT(meta_programs, 100);
  EXPECT_GT(ok, 100);
  EXPECT_GT(errors, 50);  // contract violations are generated on purpose and raise
}

}  // namespace
}  // namespace mmdiff
