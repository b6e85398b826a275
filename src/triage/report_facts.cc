// Report facts for triage.
#include "src/triage/report_facts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/ir/program_json.h"
#include "src/report/report.h"
#include "src/report/rerun_records_json.h"
#include "src/support/json_guard.h"
#include "src/triage/reduction_k.h"
#include "src/triage/triage_rank.h"

namespace mmdiff::triage {

namespace {

using nlohmann::json;

std::string StringAt(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The verdict writes NaN and infinities as strings.
double NumberOf(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

ProgramFacts FactsOfProgram(const json& program) {
  ProgramFacts f;
  if (!program.is_object()) return f;
  if (program.contains("nodes") && program["nodes"].is_array())
    for (const auto& n : program["nodes"]) {
      std::string op = StringAt(n, "op");
      auto kind = ParseOpKind(op);
      if (!kind || !(IsMatmulFamily(*kind) || *kind == OpKind::kSdpa)) continue;
      if (std::find(f.ops.begin(), f.ops.end(), op) == f.ops.end()) f.ops.push_back(op);
    }
  if (program.contains("inputs") && program["inputs"].is_array())
    for (const auto& in : program["inputs"]) {
      std::string dtype = StringAt(in, "dtype");
      if (!dtype.empty() && std::find(f.dtypes.begin(), f.dtypes.end(), dtype) == f.dtypes.end())
        f.dtypes.push_back(dtype);
    }
  std::sort(f.dtypes.begin(), f.dtypes.end());
  return f;
}

BucketClass ClassOf(const json& divergences) {
  bool any = false, all_precision = true;
  for (const auto& d : divergences) {
    std::string c = StringAt(d, "classification");
    if (c == "filable") return BucketClass::kFilable;
    any = true;
    all_precision = all_precision && c == "precision-only";
  }
  return any && all_precision ? BucketClass::kPrecisionOnly : BucketClass::kUnclassified;
}

}  // namespace

namespace {
Result<ReportFacts> ReadReportFactsUnguarded(const json& r) {
  if (Status s = CheckReportFormat(r); !s.ok()) return s;
  if (!r.contains("bucket") || !r["bucket"].is_object())
    return Status::Error("missing field \"bucket\"");
  ReportFacts f;
  f.hash = StringAt(r["bucket"], "hash");
  f.signature = StringAt(r["bucket"], "signature");
  if (f.hash.empty()) return Status::Error("missing or empty field \"bucket.hash\"");
  if (!r.contains("verdict") || !r["verdict"].is_object() ||
      !r["verdict"].contains("divergences") || !r["verdict"]["divergences"].is_array())
    return Status::Error("missing field \"verdict.divergences\" (a list)");
  const json& divergences = r["verdict"]["divergences"];
  f.headline = StringAt(r, "headline");
  f.summary = StringAt(r, "summary");
  f.repro = StringAt(r, "repro");
  f.program = FactsOfProgram(r.value("program", json()));
  f.cls = ClassOf(divergences);
  if (r.contains("inputs") && r["inputs"].is_object() && r["inputs"].contains("seed") &&
      r["inputs"]["seed"].is_number_unsigned())
    f.input_seed = r["inputs"]["seed"].get<uint64_t>();

  // The report's own finding (version 2) is what its headline, kind, blame and class describe.
  size_t lead = 0;
  if (r.contains("finding") && r["finding"].is_object() && r["finding"].contains("divergence") &&
      r["finding"]["divergence"].is_number_unsigned() &&
      r["finding"]["divergence"].get<uint64_t>() < divergences.size()) {
    lead = r["finding"]["divergence"].get<uint64_t>();
    f.cls = ClassOf(json::array({divergences[lead]}));
  }
  // The class the report decided, where it records one: its filing is the bucket's.
  f.root_class = ClassFromFields(r);
  if (f.root_class)
    f.cls = f.root_class->filing == Filing::kFilable         ? BucketClass::kFilable
            : f.root_class->filing == Filing::kPrecisionOnly ? BucketClass::kPrecisionOnly
                                                             : BucketClass::kUnclassified;
  if (r.contains("versions") && r["versions"].is_object())
    f.torch = StringAt(r["versions"], "torch");
  if (r.contains("standalone")) {
    auto rec = StandaloneFromJson(r["standalone"]);
    if (!rec.ok()) return Status::Error(rec.error());
    f.standalone = StandaloneStatusName(StandaloneStatusOf(rec.value()));
    f.standalone_line = StandaloneLine(rec.value());
  }
  auto judged = ReadJudgedCase(r);
  if (judged.ok()) f.root_causes = ReportRootCauses(judged.value());
  if (f.root_causes.empty() && !f.signature.empty()) f.root_causes.push_back(f.signature);

  std::optional<Program> program;
  if (r.contains("program")) {
    auto p = ProgramFromJson(r["program"]);
    if (p.ok()) program = p.value();
  }
  for (const auto& d : divergences) {
    if (!d.is_object())
      return Status::Error("a divergence in \"verdict.divergences\" is not an object");
    std::string kind = StringAt(d, "kind");
    if (kind.empty()) return Status::Error("a divergence has no \"kind\"");
    if (f.kinds.size() == lead) {
      f.kind = kind;
      f.blamed = StringAt(d, "blamed");
    }
    f.kinds.push_back(kind);
    f.severity = std::max(f.severity, Severity(kind));
    if (kind != "value" || !d.contains("worst") || !d["worst"].is_object()) continue;
    const json& worst = d["worst"];
    double error =
        std::fabs(NumberOf(worst.value("got", json())) - NumberOf(worst.value("expected", json())));
    double allowed = NumberOf(worst.value("allowed_error", json()));
    int output = worst.contains("output") && worst["output"].is_number_integer()
                     ? worst["output"].get<int>()
                     : -1;
    int64_t k = program ? OutputReductionK(*program, output).value_or(0) : 0;
    if (!std::isfinite(error) || error <= 0 || k <= 0) {
      ++f.unplotted_errors;
      continue;
    }
    std::string c = StringAt(d, "classification");
    BucketClass cls = c == "filable"          ? BucketClass::kFilable
                      : c == "precision-only" ? BucketClass::kPrecisionOnly
                                              : BucketClass::kUnclassified;
    f.errors.push_back(
        {f.hash, StringAt(d, "blamed"), cls, k, error, std::isfinite(allowed) ? allowed : 0});
  }
  if (f.kinds.empty()) f.kind = "none";
  return f;
}
}  // namespace

Result<ReportFacts> ReadReportFacts(const json& r) {
  return GuardJson("report", [&] { return ReadReportFactsUnguarded(r); });
}

}  // namespace mmdiff::triage
