// libFuzzer target: every JSON loader mmdiff has (program, case, report, policy, regression entry,
// campaign summary) on arbitrary bytes must return a value or an error — never crash, hang, leak or
// trip ASan/UBSan — and whatever a loader accepts must survive the verifier, the contract and
// serialisation again.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "oracles/contract.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/gen/policy.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program_json.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"
#include "src/support/json_limits.h"
#include "src/triage/report_facts.h"

namespace {

// An accepted program goes through everything that reads programs downstream.
void Exercise(const mmdiff::Program& p) {
  (void)mmdiff::InferStaticTypes(p);
  (void)mmdiff::Expect(p);
  auto again = mmdiff::ParseProgramText(mmdiff::ProgramToJson(p).dump());
  if (!again.ok()) __builtin_trap();  // what was accepted must round-trip
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto program = mmdiff::ParseProgramText(text);
  if (program.ok()) Exercise(program.value());
  auto entry = mmdiff::ParseRegressionEntry(text);
  if (entry.ok()) Exercise(entry.value().program);
  auto parsed = mmdiff::ParseJsonBounded(text);
  if (!parsed.ok()) return 0;
  const nlohmann::json& j = parsed.value();
  (void)mmdiff::CheckCaseFileFormat(j);
  (void)mmdiff::triage::ReadReportFacts(j);
  (void)mmdiff::PolicyFromJson(j);
  mmdiff::FuzzOptions o;
  mmdiff::FuzzSummary s;
  (void)mmdiff::SummaryFromJson(j, o, s);
  if (j.is_object()) {
    for (const char* key : {"inputs", "recipe"})
      if (j.contains(key)) (void)mmdiff::RecipeFromJson(j[key]);
    if (j.contains("program")) {
      auto p = mmdiff::ProgramFromJson(j["program"]);
      if (p.ok() && mmdiff::Verify(p.value()).ok()) Exercise(p.value());
    }
  }
  return 0;
}
