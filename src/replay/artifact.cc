// Program-fuzzer artifacts in replay: telling them from regression entries and preparing them.
#include "src/replay/artifact.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/gen/fuzz_input.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace {

PreparedEntry Invalid(const std::string& file, const std::string& why) {
  PreparedEntry e;
  e.row.file = file;
  e.row.status = ReplayStatus::kInvalid;
  e.row.detail = why;
  return e;
}

std::string Title(const FuzzInput& in, size_t size) {
  std::string title = "program-fuzzer input: " + std::string(FuzzInputKindName(in.kind));
  if (in.kind == FuzzInputKind::kChoices)
    title += " (" + std::to_string(size) + " bytes; not a case: " + in.not_a_case + ")";
  return title;
}

}  // namespace

bool IsFuzzerArtifactName(const std::string& file) {
  std::string name = std::filesystem::path(file).filename().string();
  for (const char* prefix : {"crash-", "timeout-", "oom-", "leak-"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

PreparedEntry PrepareReplayFile(const std::string& file, const std::string& torch_version,
                                bool has_gpu, const ArtifactOptions& artifacts) {
  auto bytes = ReadFile(file);
  if (!bytes.ok()) return Invalid(file, bytes.error());
  // JSON beyond the limits reads as not JSON: raw generator bytes unless the name says .json.
  auto parsed = ParseJsonBounded(bytes.value());
  nlohmann::json j =
      parsed.ok() ? std::move(parsed.value()) : nlohmann::json(nlohmann::json::value_t::discarded);
  bool is_json_name = std::filesystem::path(file).extension() == ".json";
  bool entry = j.is_object() && j.contains("format") && j["format"] == "mmdiff.regression";
  // A *.json file that is not even JSON was meant as an entry or a case: say it is malformed.
  if (entry || (is_json_name && j.is_discarded()))
    return PrepareEntry(file, torch_version, has_gpu);
  // A case file named *.json is read as `mmdiff run` reads it: an unknown format or a report
  // version this mmdiff does not read is invalid, not a program to run.
  if (is_json_name)
    if (Status s = CheckCaseFileFormat(j); !s.ok()) return Invalid(file, s.message());
  FuzzInput in = DecodeFuzzInput(bytes.value(), artifacts.policy);
  if (is_json_name && in.kind != FuzzInputKind::kCase)
    return Invalid(file, "neither a regression entry nor a case: " + in.not_a_case);
  PreparedEntry e;
  e.artifact = true;
  VersionExpectation diverges{"any", /*diverges=*/true, {}, "a program-fuzzer artifact"};
  e.entry = RegressionEntry{Title(in, bytes.value().size()),
                            in.gc.program,
                            in.gc.recipe,
                            {},
                            artifacts.paths,
                            {diverges}};
  e.expected = diverges;
  e.row.file = file;
  e.row.title = e.entry->title;
  e.row.status = ReplayStatus::kSkipped;
  e.row.torch_range = diverges.torch;
  e.row.expected = DescribeExpectation(diverges);
  PendUnlessGpuMissing(e, has_gpu);
  return e;
}

}  // namespace mmdiff
