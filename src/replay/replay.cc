// Replay: collecting entry files, preparing, running and classifying each entry.
#include "src/replay/replay.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "src/replay/artifact.h"
#include "src/report/report.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/hash.h"

namespace mmdiff {

namespace fs = std::filesystem;

namespace {

bool UsesCuda(const Program& p) {
  for (const auto& in : p.inputs)
    if (in.device == Device::kCuda) return true;
  for (const auto& n : p.nodes)
    if (n.device && *n.device == Device::kCuda) return true;
  return false;
}

// Does an observed divergence match an expected one (kind, and blamed path unless any)?
bool Matches(const Divergence& d, const ExpectedDivergence& want) {
  return DivergenceKindName(d.kind) == want.kind &&
         (want.blamed.empty() || d.blamed == want.blamed);
}

ReplayRow InvalidRow(const std::string& file, const std::string& why) {
  ReplayRow r;
  r.file = file;
  r.status = ReplayStatus::kInvalid;
  r.detail = why;
  return r;
}

}  // namespace

std::string_view ReplayStatusName(ReplayStatus s) {
  switch (s) {
    case ReplayStatus::kMatch:
      return "match";
    case ReplayStatus::kFixed:
      return "fixed";
    case ReplayStatus::kNewBehaviour:
      return "new-behaviour";
    case ReplayStatus::kSkipped:
      return "skipped";
    case ReplayStatus::kInvalid:
      return "invalid";
  }
  return "?";
}

std::vector<std::string> CollectReplayFiles(const std::vector<std::string>& args,
                                            std::vector<ReplayRow>& invalid) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> found;
      for (const auto& f : fs::directory_iterator(arg, ec))
        if ((f.path().extension() == ".json" || IsFuzzerArtifactName(f.path().string())) &&
            !f.is_directory())
          found.push_back(f.path().string());
      if (ec) {
        invalid.push_back(InvalidRow(arg, "cannot list the folder: " + ec.message()));
        continue;
      }
      if (found.empty()) {
        invalid.push_back(InvalidRow(
            arg,
            "the folder holds no regression entries (*.json) or fuzzer artifacts (crash-*, ...)"));
        continue;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(arg, ec)) {
      files.push_back(arg);
    } else {
      invalid.push_back(InvalidRow(arg, "no such file or folder"));
    }
  }
  return files;
}

PreparedEntry PrepareEntry(const std::string& file, const std::string& torch_version,
                           bool has_gpu) {
  PreparedEntry e;
  e.row.file = file;
  auto text = ReadFile(file);
  if (!text.ok()) {
    e.row = InvalidRow(file, text.error());
    return e;
  }
  auto parsed = ParseRegressionEntry(text.value());
  if (!parsed.ok()) {
    e.row = InvalidRow(file, parsed.error());
    return e;
  }
  e.entry = parsed.value();
  e.row.title = e.entry->title;
  e.expected = ExpectationFor(*e.entry, torch_version);
  e.row.status = ReplayStatus::kSkipped;
  if (!e.expected) {
    std::string ranges;
    for (const auto& x : e.entry->expected) ranges += (ranges.empty() ? "" : "; ") + x.torch;
    e.row.detail = "no expectation for torch " + torch_version + " (the entry covers " +
                   (ranges.empty() ? std::string("no version") : ranges) + ")";
    return e;
  }
  e.row.torch_range = e.expected->torch;
  e.row.expected = DescribeExpectation(*e.expected);
  if (auto missing = MissingCpuFlags(*e.expected); !missing.empty()) {
    std::string names;
    for (const auto& f : missing) names += (names.empty() ? "" : ", ") + f;
    e.row.detail = "needs a CPU with " + names +
                   " (the expected behaviour lives in that kernel); this one lacks it";
    return e;
  }
  PendUnlessGpuMissing(e, has_gpu);
  return e;
}

void PendUnlessGpuMissing(PreparedEntry& e, bool has_gpu) {
  if (UsesCuda(e.entry->program) && !has_gpu) {
    e.row.status = ReplayStatus::kSkipped;
    e.row.detail = "needs cuda: this machine has no GPU";
    return;
  }
  e.pending = true;
}

Verdict RunEntry(PreparedEntry& e, const ReplayEnvironment& env, const RunPathsFn& run) {
  e.pending = false;
  const RegressionEntry& entry = *e.entry;
  for (const auto& name : entry.paths) {
    auto it = std::find_if(env.paths.begin(), env.paths.end(),
                           [&](const PathInfo& p) { return p.name == name; });
    if (it == env.paths.end()) {
      e.row.status = ReplayStatus::kInvalid;
      e.row.detail =
          "unknown path \"" + name + "\"" +
          (env.test_paths ? "" : " (test-only paths such as planted_promote need --test-paths)");
      return {};
    }
    if (!it->available) {
      e.row.status = ReplayStatus::kSkipped;
      e.row.detail = "path " + name + " is not available here: " + it->why;
      return {};
    }
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<PathResult> results =
      RunCalls(run, entry.before, entry.program, entry.recipe, entry.paths);
  e.row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& r : results) {
    // A device the program needs and the machine lacks, found only at run time (e.g. a driver
    // without a usable GPU): nothing was checked, so nothing can have changed.
    if (r.kind == OutcomeKind::kUnsupported && r.unsupported == UnsupportedReason::kNoGpu) {
      e.row.status = ReplayStatus::kSkipped;
      e.row.detail = r.path + ": " + r.message;
      return {};
    }
  }
  CaseRun c = JudgeRun(run, entry.program, entry.recipe, std::move(results), entry.before);
  e.row.observed = DescribeVerdict(c.verdict);
  if (e.artifact && c.verdict.diverges()) {
    auto findings = CaseFindings(c);
    for (const auto& k : findings) {
      e.row.note += std::string(e.row.note.empty() ? "" : "; ") + "bucket " + HashHex(k.signature) +
                    ": " + Headline(WithFinding(c, k));
      if (env.catalogue)
        if (std::string word =
                DescribeCatalogueMatch(*env.catalogue, k.signature, env.torch_version);
            !word.empty())
          e.row.note += " (" + word + ")";
    }
  }
  auto [status, detail] = ClassifyVerdict(c.verdict, *e.expected);
  e.row.status = status;
  e.row.detail = detail;
  return c.verdict;
}

std::pair<ReplayStatus, std::string> ClassifyVerdict(const Verdict& observed,
                                                     const VersionExpectation& expected) {
  std::string diff = CompareWithExpectation(observed, expected);
  if (diff.empty()) return {ReplayStatus::kMatch, ""};
  if (!expected.diverges)
    return {ReplayStatus::kNewBehaviour, diff};  // expected agreement: any divergence is new
  if (!observed.diverges()) return {ReplayStatus::kFixed, diff};
  // It still diverges, but not as expected: only a removal when every observed divergence is one
  // of the expected ones.
  for (const auto& d : observed.divergences) {
    bool expected_one = std::any_of(expected.divergences.begin(), expected.divergences.end(),
                                    [&](const ExpectedDivergence& w) { return Matches(d, w); });
    if (!expected_one) {
      std::string detail = d.detail.size() > 200 ? d.detail.substr(0, 200) + "..." : d.detail;
      return {ReplayStatus::kNewBehaviour, diff + "; unexpected " +
                                               std::string(DivergenceKindName(d.kind)) +
                                               BlameLabel(d) + ": " + detail};
    }
  }
  return {ReplayStatus::kFixed, diff};
}

std::string DescribeExpectation(const VersionExpectation& e) {
  if (!e.diverges) return "agree";
  if (e.divergences.empty()) return "diverge";
  std::string out = "diverge:";
  for (size_t i = 0; i < e.divergences.size(); ++i)
    out += (i ? ", " : " ") + e.divergences[i].kind + " [" +
           (e.divergences[i].blamed.empty() ? "any path" : e.divergences[i].blamed) + "]";
  return out;
}

std::string DescribeVerdict(const Verdict& v) {
  if (!v.diverges()) return "agree";
  std::string out = "diverge:";
  for (size_t i = 0; i < v.divergences.size(); ++i) {
    const Divergence& d = v.divergences[i];
    std::string who = d.blamed;
    for (size_t k = 0; who.empty() && k < d.paths.size(); ++k) who = d.paths[k];
    if (d.blamed.empty())
      for (size_t k = 1; k < d.paths.size(); ++k) who += " vs " + d.paths[k];
    out += (i ? ", " : " ") + std::string(DivergenceKindName(d.kind)) + " [" + who + "]";
  }
  return out;
}

ReplayCounts CountRows(const std::vector<ReplayRow>& rows) {
  ReplayCounts c;
  for (const auto& r : rows) {
    switch (r.status) {
      case ReplayStatus::kMatch:
        ++c.match;
        break;
      case ReplayStatus::kFixed:
        ++c.fixed;
        break;
      case ReplayStatus::kNewBehaviour:
        ++c.new_behaviour;
        break;
      case ReplayStatus::kSkipped:
        ++c.skipped;
        break;
      case ReplayStatus::kInvalid:
        ++c.invalid;
        break;
    }
  }
  return c;
}

}  // namespace mmdiff
