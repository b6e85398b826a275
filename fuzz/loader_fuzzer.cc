// libFuzzer target: every JSON loader mmdiff has (program, case, report, policy, regression entry,
// campaign summary, promote's report reader) and the supervisor's reader of worker messages, on
// arbitrary bytes, must return a value or an error — never crash, hang, leak or trip ASan/UBSan —
// and whatever a loader accepts must survive the verifier, the contract and serialisation again
// (a message read from a worker must dump: its strings are valid UTF-8).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "oracles/contract.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/exec/wire.h"
#include "src/gen/policy.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program_json.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"
#include "src/replay/promote.h"
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

// The bytes as a worker would send them, read by the supervisor's frame reader: once as the body of
// a frame of their length, then as a raw stream (their first eight bytes a frame header).
void ReadAsWorkerMessages(const uint8_t* data, size_t size) {
  if (size > 30000) return;  // the pipe (64 KiB) must hold both copies: this thread writes them
  int fds[2];
  if (pipe(fds) != 0) return;
  // A frame with a checksum that matches (the body reaches the decoder), then the bytes again.
  const std::vector<uint8_t> framed = mmdiff::EncodeFrame({data, data + size});
  bool written =
      write(fds[1], framed.data(), framed.size()) == static_cast<ssize_t>(framed.size()) &&
      write(fds[1], data, size) == static_cast<ssize_t>(size);
  close(fds[1]);
  for (int frame = 0; written && frame < 2; ++frame) {
    mmdiff::ReadResult r = mmdiff::ReadFrame(fds[0], 1000);
    if (r.state != mmdiff::ReadState::kOk) break;
    if (!r.message.is_object()) __builtin_trap();  // the reader promises a map
    (void)r.message.dump();                        // throws (and aborts) on invalid UTF-8
    if (r.message.contains("result")) (void)mmdiff::PathResultFromJson(r.message["result"]);
  }
  close(fds[0]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ReadAsWorkerMessages(data, size);
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)mmdiff::PromoteReport(text, {});
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
