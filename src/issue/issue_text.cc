// Issue texts for new root causes.
#include "src/issue/issue_text.h"

#include <algorithm>
#include <filesystem>

#include "src/ir/paths.h"
#include "src/releases/release_table.h"
#include "src/report/finding_class.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// One line of text: no line breaks or control characters.
std::string Line(std::string s, size_t max = 400) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t' || static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

// One line of text from a file in markdown: no HTML, code span or table cell of its own.
std::string Inline(const std::string& s, size_t max = 400) {
  std::string out;
  for (char c : Line(s, max)) {
    if (c == '`' || c == '<' || c == '>' || c == '|' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The headline without its class tag (the last " [...]"), which the text states apart.
std::string WithoutTag(const std::string& headline) {
  if (headline.empty() || headline.back() != ']') return headline;
  size_t at = headline.rfind(" [");
  return at == std::string::npos ? headline : headline.substr(0, at);
}

const json* PathResult(const json& report, const std::string& path) {
  if (!report.contains("paths") || !report["paths"].is_array()) return nullptr;
  for (const auto& p : report["paths"])
    if (Str(p, "path") == path) return &p;
  return nullptr;
}

// "raises RuntimeError: expected ..." or "returns float32[2, 3]".
std::string Outcome(const json* p) {
  if (!p) return "?";
  if (Str(*p, "outcome") == "error")
    return "raises " + Str(*p, "error_class") + ": " + Str(*p, "message");
  if (Str(*p, "outcome") != "ok") return Str(*p, "outcome");
  std::string types;
  if (p->contains("outputs") && (*p)["outputs"].is_array())
    for (const auto& o : (*p)["outputs"]) {
      std::string shape;
      if (o.contains("shape") && o["shape"].is_array())
        for (const auto& d : o["shape"]) shape += (shape.empty() ? "" : ", ") + d.dump();
      types += (types.empty() ? "" : ", ") + Str(o, "dtype") + "[" + shape + "]";
    }
  return "returns " + types;
}

// The second sentence: what was expected, by the finding's kind.
std::string Expected(const json& report, const json& d) {
  const std::string kind = Str(d, "kind"), blamed = Str(d, "blamed");
  const json* eager = PathResult(report, paths::kEager);
  const json& contract = report.value("contract", json::object());
  if (blamed == paths::kEager || kind == "contract")
    return contract.value("rejects", false)
               ? "Expected: eager raises " + Str(contract, "error_class") + " (" +
                     Str(contract, "message") + "), as the rule its other paths follow says"
               : "Expected: eager computes it as the rule and the exact reference do";
  if (kind == "value" || kind == "ignored_input")
    return "Expected: values within the rounding bound of the exact result, as eager's are (" +
           Str(d, "detail") + ")";
  if (kind == "error_behaviour" || kind == "error_class" || kind == "backward_error")
    return "Expected: " + (blamed.empty() ? std::string("the paths") : blamed) +
           " behaves as eager does: eager " + Outcome(eager);
  if (kind == "crash" || kind == "timeout")
    return "Expected: " + blamed + " returns or raises as eager does: eager " + Outcome(eager);
  return "Expected: the result eager gives: eager " + Outcome(eager);
}

// The headline in PyTorch's words: its leading path name (mmdiff's, e.g. "inductor_freezing") as
// the ablation spells that stage ("inductor under torch.no_grad(), freezing=True"), where it does.
std::string InPyTorchsWords(const std::string& headline, const json& report) {
  size_t end = headline.find_first_of(" ,");
  if (end == std::string::npos || !report.contains("ablation") || !report["ablation"].is_object() ||
      !report["ablation"].contains("stages") || !report["ablation"]["stages"].is_array())
    return headline;
  const std::string path = headline.substr(0, end);
  for (const auto& st : report["ablation"]["stages"])
    if (Str(st, "path") == path && !Str(st, "backend").empty() && Str(st, "backend") != path)
      return Str(st, "backend") + headline.substr(end);
  return headline;
}

// Where the class is not a bug to file, the text says so first: what a maintainer would answer.
std::string NotToFile(const std::optional<RootCauseClass>& c) {
  if (!c) return "";
  switch (c->filing) {
    case Filing::kFilable:
      return "";
    case Filing::kPrecisionOnly:
      return "> Not advised to file: the compiled result is no less accurate than eager's against "
             "the float64 result, which PyTorch's rule for compiler accuracy reports does not "
             "call a bug.\n\n";
    case Filing::kByDesign:
      return "> Not advised to file: a documented behaviour (" + Inline(c->reason, 300) + ").\n\n";
    case Filing::kErrorClassOrMeta:
      return "> File with care: both reject the program but differ in how, or only the meta "
             "device differs; maintainers often answer such reports as by design.\n\n";
  }
  return "";
}

// A catalogue file as a reader of the repository finds it (corpus/regression/...), not this
// machine's absolute path.
std::string RepositoryPath(const std::string& source) {
  size_t at = source.rfind("/corpus/regression/");
  return at == std::string::npos ? source : source.substr(at + 1);
}

// A fence longer than any run of backticks in the text.
std::string Fence(const std::string& text) {
  size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string Regression(const std::optional<json>& releases, const std::string& report_path) {
  if (releases) {
    auto h = GuardJson("releases.json", [&] { return FirstFindingHistory(*releases); });
    if (h.ok())
      return std::string("`mmdiff releases`: ") + Inline(h.value().summary) + " (" +
             std::string(ReleaseLabelName(h.value().label)) + ").\n";
  }
  return "Not measured. `mmdiff releases " + report_path +
         "` runs it in every torch release set up on this machine (`scripts/setup --venv-only "
         "--torch 2.11.0` adds one), or `mmdiff issue --releases` does both.\n";
}

std::string Catalogue(const json& finding) {
  std::string out;
  for (const char* key : {"unclaimed", "catalogue"}) {
    if (!finding.contains(key) || !finding[key].is_object()) continue;
    const json& k = finding[key];
    out += "- " + Inline(Str(k, "title"));
    if (!Str(k, "upstream").empty()) out += " (" + Inline(Str(k, "upstream")) + ")";
    out += ": mmdiff's catalogue entry `" + Inline(RepositoryPath(Str(k, "source"))) + "`";
    if (Str(k, "standing") == "back")
      out +=
          ", which " + Inline(Str(k, "why")) + ": this is that bug back, or a form its fix misses";
    else if (!Str(k, "why").empty())
      out += ", which " + Inline(Str(k, "why"));
    out += ".\n";
  }
  return out;
}

}  // namespace

Result<std::string> IssueMarkdown(const IssueSources& s) {
  const json& r = s.report;
  if (Status st = CheckReportFormat(r); !st.ok()) return st;
  const std::string headline = Str(r, "headline");
  const json& finding = r.value("finding", json::object());
  const json& divs = r.contains("verdict") && r["verdict"].is_object()
                         ? r["verdict"].value("divergences", json::array())
                         : json::array();
  size_t at = finding.contains("divergence") && finding["divergence"].is_number_unsigned()
                  ? finding["divergence"].get<size_t>()
                  : 0;
  if (!divs.is_array() || at >= divs.size() || headline.empty())
    return Status::Error("the report records no divergence to file");
  const json& d = divs[at];
  // An older report records no class: decided here as a campaign decides it now.
  auto cls = ClassFromFields(r);
  if (!cls)
    if (auto judged = ReadJudgedCase(r); judged.ok())
      if (auto causes = ReportRootCauses(judged.value()); !causes.empty())
        cls = ClassifyRootCause(causes.front(), Str(d, "classification"));
  const std::string tag = cls ? ClassTag(*cls) : "[class unknown: the report cannot be read back]";
  const json& v = r.value("versions", json::object());
  auto version = [&](const char* key) {
    std::string x = Str(v, key);
    return x.empty() ? std::string("not recorded") : Inline(x);
  };

  const std::string what = InPyTorchsWords(WithoutTag(headline), r);
  std::string md = "# " + Inline(what, 200) + "\n\n";
  md += "<!-- written by mmdiff from " + Inline(s.report_path) + " -->\n\n";
  md += "mmdiff class: " + Inline(tag, 600) + "\n\n" + NotToFile(cls);
  md += "### 🐛 Describe the bug\n\n";
  md += Inline(what, 600) + ". " + Inline(Expected(r, d), 800) + ".\n\n";
  const std::string fence = Fence(s.repro);
  md += fence + "python\n" + s.repro + (s.repro.empty() || s.repro.back() == '\n' ? "" : "\n") +
        fence + "\n\n";
  md += "`python repro.py` exits 1 where it shows the finding, 0 where it does not.\n";
  if (r.contains("standalone") && r["standalone"].is_object())
    md += "Run again by mmdiff: " + Inline(Str(r["standalone"], "detail")) + ".\n";
  md += "\n";
  if (r.contains("ablation") && r["ablation"].is_object() && r["ablation"].contains("stages") &&
      r["ablation"]["stages"].is_array()) {
    md +=
        "torch.compile's stages on this case (the first that differs from eager is where the "
        "fault lies):\n\n| stage | outcome | agrees with eager |\n|---|---|---|\n";
    for (const auto& st : r["ablation"]["stages"])
      md += "| " + Inline(Str(st, "backend")) + " | " + Inline(Str(st, "outcome")) + " | " +
            (st.value("agrees_with_eager", false) ? "yes" : "no") + " |\n";
    md += "\n";
  } else {
    md += "No ablation over torch.compile's stages was recorded for this case.\n\n";
  }
  md += "### Versions\n\n";
  md += "- torch: " + version("torch") + "\n- Python: " + version("python") +
        "\n- OS: " + version("os") + "\n- CPU: " + version("cpu") + "\n- found by: mmdiff " +
        version("mmdiff") + "\n\n";
  md += "### Is it a regression?\n\n" + Regression(s.releases, s.report_path) + "\n";
  const std::string related = Catalogue(finding);
  md += "### Related issues\n\n" +
        (related.empty() ? std::string("None in mmdiff's catalogue.\n") : related);
  return md;
}

void AddCatalogueMatch(IssueSources& s, const KnownCatalogue& catalogue) {
  if (!s.report.is_object()) return;
  if (!s.report.contains("finding")) s.report["finding"] = json::object();  // a version 1 report
  json& finding = s.report["finding"];
  if (!finding.is_object() || finding.contains("catalogue") || finding.contains("unclaimed"))
    return;
  auto judged = ReadJudgedCase(s.report);
  if (!judged.ok()) return;
  std::string torch = Str(s.report.value("versions", json::object()), "torch");
  if (torch.empty()) torch = catalogue.torch();
  for (const std::string& cause : ReportRootCauses(judged.value())) {
    if (const KnownCause* k = catalogue.Find(cause, torch)) {
      finding["catalogue"] = KnownRecordToJson(k->Record(torch));
      return;
    }
    if (auto u = catalogue.Unclaimed(cause, torch)) {
      finding["unclaimed"] = KnownRecordToJson(*u);
      return;
    }
  }
}

Result<IssueSources> ReadIssueSources(const std::string& path) {
  std::error_code ec;
  fs::path report = path;
  if (fs::is_directory(report, ec)) {
    report = fs::exists(report / "reduced" / "report.json", ec) ? report / "reduced" / "report.json"
                                                                : report / "report.json";
  }
  IssueSources s;
  s.report_path = report.string();
  auto text = ReadFile(report.string());
  if (!text.ok()) return Status::Error(report.string() + ": " + text.error());
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error(report.string() + ": " + j.error());
  s.report = j.value();
  if (Status st = CheckReportFormat(s.report); !st.ok())
    return Status::Error(report.string() + ": " + st.message());
  const std::string repro = Str(s.report, "repro").empty() ? "repro.py" : Str(s.report, "repro");
  if (repro.find('/') != std::string::npos || repro == "..")
    return Status::Error(report.string() + ": \"repro\" must name a file beside the report");
  auto code = ReadFile((report.parent_path() / repro).string());
  if (!code.ok()) return Status::Error(code.error());
  s.repro = code.value();
  for (const fs::path& rel : {report.parent_path() / "releases.json",
                              report.parent_path().parent_path() / "releases.json"}) {
    if (!fs::exists(rel, ec)) continue;
    auto rt = ReadFile(rel.string());
    auto rj = rt.ok() ? ParseJsonBounded(rt.value()) : Result<json>(rt.status());
    if (rj.ok()) s.releases = rj.value();
    break;
  }
  return s;
}

}  // namespace mmdiff
