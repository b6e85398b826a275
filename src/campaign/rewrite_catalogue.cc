// The rewrites of a torch install, and those campaigns never reached.
#include "src/campaign/rewrite_catalogue.h"

#include <algorithm>
#include <sstream>

#include "mmdiff/python/inductor_lowerings.h"
#include "mmdiff/python/inductor_rewrites.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"
#include "src/support/subprocess.h"

namespace mmdiff {

namespace {

// The text the install's Python runs: the naming rules and catalogues (the rewrites', the
// lowerings'), then a line that writes the scope's listing.
std::string CatalogueScript(CatalogueScope scope) {
  return std::string(embedded::kInductorRewritesPy) + "\n" +
         std::string(embedded::kInductorLoweringsPy) +
         "\nimport json, sys\n"
         "with open(sys.argv[1], 'w') as out:\n"
         "    json.dump(" +
         (scope == CatalogueScope::kSteeringTargets
              ? "attention_fusion_catalogue() + lowering_catalogue()"
              : "rewrite_catalogue() + lowering_catalogue()") +
         ", out)\n";
}

std::string LastLine(const std::string& path) {
  auto text = ReadFile(path, size_t{1} << 24);
  if (!text.ok()) return "(no output)";
  std::istringstream lines(text.value());
  std::string line, last = "(no output)";
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.substr(0, 300);
}

}  // namespace

Result<std::vector<CatalogueRewrite>> ParseRewriteCatalogue(const std::string& text) {
  auto parsed = ParseJsonBounded(text);
  if (!parsed.ok()) return Status::Error("the catalogue is not JSON: " + parsed.error());
  const nlohmann::json& j = parsed.value();
  if (!j.is_array()) return Status::Error("the catalogue must be an array");
  std::vector<CatalogueRewrite> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& e = j[i];
    const std::string where = "catalogue entry " + std::to_string(i);
    auto text_field = [&](const char* key) -> Result<std::string> {
      if (!e.is_object() || !e.contains(key) || !e.at(key).is_string())
        return Status::Error(where + ": \"" + key + "\" must be a string");
      return e.at(key).get<std::string>();
    };
    CatalogueRewrite r;
    auto name = text_field("name"), kind = text_field("kind"), note = text_field("note");
    for (const auto* f : {&name, &kind, &note})
      if (!f->ok()) return f->status();
    r.name = name.value();
    if (!ValidRewriteName(r.name)) return Status::Error(where + ": not a rewrite name");
    r.kind = kind.value();
    if (!ValidRewriteName(r.kind)) return Status::Error(where + ": \"kind\" is not a plain word");
    r.note = note.value().substr(0, 200);
    for (char& ch : r.note)  // printed as it is: plain text only
      if (ch < ' ' || ch > '~') ch = '?';
    if (!e.contains("family") || !e.at("family").is_boolean())
      return Status::Error(where + ": \"family\" must be true or false");
    r.family = e.at("family").get<bool>();
    if (!e.contains("ops") || !e.at("ops").is_array())
      return Status::Error(where + ": \"ops\" must be an array of op names");
    for (const auto& op : e.at("ops")) {
      if (!op.is_string() || !ValidRewriteName(op.get<std::string>()))
        return Status::Error(where + ": \"ops\" must be an array of op names");
      r.ops.push_back(op.get<std::string>());
    }
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<CatalogueRewrite>> ListInstalledRewrites(const std::string& python,
                                                            double timeout_s,
                                                            CatalogueScope scope) {
  PrivateTempDir tmp("mmdiff-rewrites");
  if (!tmp.ok()) return Status::Error("cannot make a temporary folder: " + tmp.error());
  if (Status s = WriteFileAtomic(tmp.File("catalogue.py"), CatalogueScript(scope)); !s.ok())
    return s;
  ProcessOptions o;
  o.argv = {python, tmp.File("catalogue.py"), tmp.File("catalogue.json")};
  // Inductor's caches in the temporary folder: a hit would skip the passes this lists.
  o.env = {"TORCHINDUCTOR_COMPILE_THREADS=1", "PYTHONDONTWRITEBYTECODE=1",
           "TORCHINDUCTOR_CACHE_DIR=" + tmp.File("inductor-cache")};
  o.output = tmp.File("log.txt");
  o.cwd = tmp.path();
  o.timeout_s = timeout_s;
  ProcessResult pr = RunProcess(o);
  if (!pr.started) return Status::Error("cannot start " + python + ": " + pr.error);
  if (pr.timed_out || pr.signal != 0 || pr.exit_code != 0)
    return Status::Error(python + " failed to list Inductor's rewrites (" +
                         (pr.timed_out
                              ? "ran past " + std::to_string(static_cast<int>(timeout_s)) + " s"
                          : pr.signal ? "signal " + std::to_string(pr.signal)
                                      : "exit " + std::to_string(pr.exit_code)) +
                         "): " + LastLine(o.output));
  auto text = ReadFile(tmp.File("catalogue.json"), size_t{1} << 26);
  if (!text.ok()) return text.status();
  return ParseRewriteCatalogue(text.value());
}

std::string UnreachedReport(const std::vector<CatalogueRewrite>& catalogue,
                            const RewriteCoverage& reached, int64_t programs, bool all) {
  std::vector<const CatalogueRewrite*> never, cannot, seen;
  for (const CatalogueRewrite& r : catalogue) {
    if (!r.family) continue;
    if (reached.rewrites.count(r.name))
      seen.push_back(&r);
    else
      (r.note.empty() ? never : cannot).push_back(&r);
  }
  std::ostringstream out;
  // Counts of the rewrites, then of the lowerings (kind "kernel"), each.
  for (bool kernels : {false, true}) {
    auto n = [&](const std::vector<const CatalogueRewrite*>& v) {
      return std::count_if(v.begin(), v.end(), [&](const CatalogueRewrite* r) {
        return (r->kind == kKernelKind) == kernels;
      });
    };
    if (kernels && n(seen) + n(never) + n(cannot) == 0) continue;
    out << n(seen) << " of " << n(seen) + n(never) + n(cannot)
        << (kernels ? " lowerings (the kernels a product can get on this CPU)"
                    : " matmul/attention-family rewrites")
        << " reached by " << programs << " programs; " << n(never)
        << " never reached that a CPU program could reach, " << n(cannot) << " that it cannot\n";
  }
  if (!never.empty()) out << "\nnever reached:\n";
  for (const auto* r : never) out << "  " << r->name << "  (" << r->kind << ")\n";
  if (!cannot.empty())
    out << "\nnot reachable by a program on this CPU with the default config, or (a lowering) "
           "with the variants' (why, for each):\n";
  for (const auto* r : cannot) out << "  " << r->name << "  (" << r->note << ")\n";
  if (all && !seen.empty()) {
    out << "\nreached (programs):\n";
    for (const auto* r : seen)
      out << "  " << r->name << "  " << reached.rewrites.at(r->name).programs << "\n";
  }
  return out.str();
}

}  // namespace mmdiff
