// `mmdiff triage` end to end: two fuzz shards with a planted fault are merged and ranked, the page
// is loaded in headless Chromium (rendered, plots drawn, no console errors), and bad inputs get
// their documented exit codes without damaging earlier outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/bin/chromium";

std::string Read(const std::string& path) {
  auto r = ReadFile(path);
  return r.ok() ? r.value() : "";
}

struct BrowserRun {
  std::string dom;  // --dump-dom: the DOM after load, once the page's scripts have run
  std::string log;  // stderr with --enable-logging=stderr
};

// Loads a page in headless Chromium. As root, Chromium needs --no-sandbox.
BrowserRun LoadInChromium(const std::string& page, const std::string& scratch) {
  std::string dom = scratch + "/dom.html", log = scratch + "/chromium.log";
  // In a subshell: RunShell appends its own 2>&1, which must not undo the redirections.
  e2e::RunShell("(timeout 120 " + std::string(kChromium) +
                " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" + scratch +
                "/profile --enable-logging=stderr --v=0 --dump-dom file://" +
                fs::absolute(page).string() + " >" + dom + " 2>" + log + ")");
  return {Read(dom), Read(log)};
}

// Chromium prints every console message, whatever its level, as an INFO line such as
//   [7144:7144:1122/051851.304763:INFO:CONSOLE:1] "planted console error", source: file:///x.html
//   (1)
// (older builds write "CONSOLE(1)"); an uncaught exception reads "Uncaught Error: ...". Its other
// ERROR lines (D-Bus, GPU) are about the machine, not the page. The triage page logs nothing, so
// any console line is a failure: console.error, an exception, a blocked fetch (CSP violation).
std::vector<std::string> ConsoleLines(const std::string& log) {
  static const std::regex kConsole(R"(:CONSOLE(:\d+|\(\d+\))\])");
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, kConsole)) out.push_back(line);
  return out;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

void RequireChromium() {
  ASSERT_TRUE(fs::exists(kChromium))
      << "Chromium is missing (" << kChromium
      << "): the triage page test needs it; scripts/setup installs it (Debian package "
         "chromium)";
}

TEST(TriageE2E, ChromiumConsoleDetectorCatchesPlantedErrors) {
  RequireChromium();
  std::string dir = e2e::ScratchDir("triage-detector");
  std::ofstream(dir + "/bad.html")
      << "<!DOCTYPE html><html><body><script>console.error('planted console error');"
         "</script><script>throw new Error('planted uncaught');</script></body></html>";
  std::ofstream(dir + "/good.html")
      << "<!DOCTYPE html><html><body><script>document.documentElement.setAttribute("
         "'data-ran', 'yes');</script></body></html>";
  auto bad = LoadInChromium(dir + "/bad.html", dir);
  std::string lines = Joined(ConsoleLines(bad.log));
  EXPECT_NE(lines.find("planted console error"), std::string::npos) << bad.log;
  EXPECT_NE(lines.find("Uncaught Error: planted uncaught"), std::string::npos) << bad.log;
  auto good = LoadInChromium(dir + "/good.html", dir);
  EXPECT_TRUE(ConsoleLines(good.log).empty()) << good.log;
  EXPECT_NE(good.dom.find("data-ran=\"yes\""), std::string::npos)
      << good.dom;  // --dump-dom runs scripts
}

// The ranked table of triage.md: rank, bucket, class, filing, kind, blamed, count, severity,
// campaigns, first seen.
struct Row {
  std::string hash, finding_class, cls, kind;
  int64_t count = 0;
  int severity = 0;
  std::string first_seen;
};

std::vector<Row> TableRows(const std::string& md) {
  std::vector<Row> rows;
  std::istringstream in(md);
  static const std::regex kRow(
      R"(^\| \d+ \| `([0-9a-f]+)` \| ([^|]+) \| (\[[^|\]]+\]) \| ([a-z_]+) \| [^|]* \| (\d+) \| (\d) \| [^|]* \| ([^|]*) \|)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kRow))
      rows.push_back({m[1], m[2], m[3], m[4], std::stoll(m[5]), std::stoi(m[6]), m[7]});
  }
  return rows;
}

// The rank of the filing column's class tag: filable, then by design or error class or meta, then
// precision-only.
int ClassRank(const std::string& cls) {
  return cls == "[filable]" ? 0 : cls == "[precision-only]" ? 2 : 1;
}

// The rank of a finding class as its title reads in the table (src/report/finding_class.h).
int FindingClassRank(const std::string& title) {
  const std::vector<std::string> order = {"compiled: silent wrong result",
                                          "compiled: raises on a valid program",
                                          "compiled: accepts what the rule rejects",
                                          "eager's own bug",
                                          "error class or meta",
                                          "by design"};
  auto at = std::find(order.begin(), order.end(), title);
  return static_cast<int>(at - order.begin());  // past the end: unknown, ranked last
}

// Each ranked entry's root cause, from its section of triage.md: the reduced case's signature where
// the section gives one, else the entry's signature.
std::map<std::string, std::string> EntryRootCauses(const std::string& md) {
  std::map<std::string, std::string> out;
  std::istringstream in(md);
  static const std::regex kSection(R"(^### \d+\. `([0-9a-f]+)`)");
  std::string hash;
  auto unescape = [](std::string x) {
    for (size_t at; (at = x.find("\\|")) != std::string::npos;) x.erase(at, 1);
    return x;
  };
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kSection)) hash = m[1];
    const std::string reduced = "- root cause (signed by the reduced case): ",
                      sig = "- signature: ";
    if (hash.empty()) continue;
    if (line.rfind(reduced, 0) == 0) out[hash] = unescape(line.substr(reduced.size()));
    if (line.rfind(sig, 0) == 0 && !out.count(hash)) out[hash] = unescape(line.substr(sig.size()));
  }
  return out;
}

struct Expected {
  int64_t count = 0;
  std::set<std::string> campaigns;
  double first_found_s = 1e300;
  uint64_t first_seed = 0;
};

TEST(TriageE2E, TwoShardsAreMergedRankedAndRenderedInChromium) {
  RequireChromium();
  std::string dir = e2e::ScratchDir("triage-shards");
  // Two campaigns with different seeds, as two shards of one run; planted_promote accepts the mixed
  // dtypes eager rejects and planted_drop_k leaves out a k-term (value divergences for the K plot).
  // Keyed by root cause: triage lists buckets whose reduced cases sign alike as one entry.
  std::map<std::string, Expected> expected;
  for (const char* shard : {"s1", "s2"}) {
    // Case seeds 5..64 and 35..94 overlap, so some buckets are certainly found by both.
    std::string seed = std::string(shard) == "s1" ? "5" : "35";
    auto fuzz =
        e2e::RunMmdiff("fuzz --time 120 --cases 60 --seed " + seed +
                       " --paths reference,eager,planted_promote,planted_drop_k --test-paths "
                       "--no-standalone-check --no-ablation --out " +
                       dir + "/shards/" + shard);
    ASSERT_EQ(fuzz.exit_code, 0) << fuzz.output;
    auto summary = nlohmann::json::parse(Read(dir + "/shards/" + shard + "/summary.json"));
    for (const auto& b : summary["buckets"]) {
      std::string cause = b.value("reduced_signature", "");
      Expected& e = expected[cause.empty() ? b["signature"].get<std::string>() : cause];
      e.count += b["count"].get<int64_t>();
      e.campaigns.insert(shard);
      if (b["first_found_s"].get<double>() < e.first_found_s) {
        e.first_found_s = b["first_found_s"].get<double>();
        e.first_seed = b["first_seed"].get<uint64_t>();
      }
    }
  }
  ASSERT_GE(expected.size(), 2u) << "the shards found too little to triage";
  ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](const auto& e) {
    return e.second.campaigns.size() == 2;
  })) << "no bucket was found by both shards: nothing to merge";

  // Every bucket in the ranked table: no catalogue (known root causes are listed apart, one line
  // each).
  auto triage = e2e::RunMmdiff("triage " + dir + "/shards --no-known --out " + dir + "/out");
  ASSERT_EQ(triage.exit_code, 0) << triage.output;
  std::string md = Read(dir + "/out/triage.md");
  auto rows = TableRows(md);
  auto causes = EntryRootCauses(md);
  ASSERT_EQ(rows.size(), expected.size()) << md;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    ASSERT_TRUE(causes.count(r.hash)) << r.hash << " has no section in triage.md";
    ASSERT_TRUE(expected.count(causes[r.hash])) << r.hash << ": " << causes[r.hash];
    const Expected& e = expected.at(causes[r.hash]);
    EXPECT_LT(FindingClassRank(r.finding_class), 6) << r.hash << ": class " << r.finding_class;
    EXPECT_EQ(r.count, e.count) << r.hash << " (merged counts are the sum over shards)";
    EXPECT_NE(r.first_seen.find("seed " + std::to_string(e.first_seed)), std::string::npos)
        << r.hash << ": " << r.first_seen << " (the earliest sighting)";
    if (i == 0) continue;
    const Row& p = rows[i - 1];
    auto key = [](const Row& x) {
      return std::make_tuple(FindingClassRank(x.finding_class), ClassRank(x.cls), -x.count,
                             -x.severity, x.hash);
    };
    EXPECT_LT(key(p), key(r)) << "rank " << i << " and " << i + 1 << " are out of order:\n" << md;
  }

  auto page = LoadInChromium(dir + "/out/triage.html", dir);
  EXPECT_TRUE(ConsoleLines(page.log).empty()) << Joined(ConsoleLines(page.log));
  EXPECT_NE(page.dom.find("data-triage-ready=\"1\""), std::string::npos)
      << "the page's script did not run";
  for (const char* id : {"plot-op-dtype", "plot-error-k", "plot-buckets-time"}) {
    // data-marks is counted by the page's script from the SVG elements the browser built.
    std::smatch m;
    std::regex marks(std::string("<figure id=\"") + id +
                     R"re(" class="plot" data-marks="(\d+)")re");
    ASSERT_TRUE(std::regex_search(page.dom, m, marks))
        << id << " is missing from the rendered page";
    EXPECT_GE(std::stoi(m[1]), 1) << id << " has no drawn marks";
  }
  for (const Row& r : rows)
    EXPECT_NE(page.dom.find("id=\"bucket-" + r.hash + "\""), std::string::npos) << r.hash;
}

TEST(TriageE2E, BadInputsGetDocumentedExitCodesAndLeaveOutputsIntact) {
  std::string dir = e2e::ScratchDir("triage-bad");
  std::string example =
      std::string(MMDIFF_SOURCE_DIR) + "/reports/examples/pytorch-177630-bmm-torch-2.11.0";
  fs::create_directories(dir + "/good");
  fs::copy(example, dir + "/good/finding", fs::copy_options::recursive);
  auto ok = e2e::RunMmdiff("triage " + dir + "/good --out " + dir + "/out");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  std::string before = Read(dir + "/out/triage.md");
  ASSERT_NE(before.find("`56c30e3276257300`"), std::string::npos) << before;

  auto missing = e2e::RunMmdiff("triage " + dir + "/nope --out " + dir + "/out");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no such file or folder: " + dir + "/nope"), std::string::npos)
      << missing.output;

  std::string text = Read(dir + "/good/finding/report.json");
  std::ofstream(dir + "/truncated.json") << text.substr(0, text.size() / 2);
  auto truncated = e2e::RunMmdiff("triage " + dir + "/truncated.json --out " + dir + "/out");
  EXPECT_EQ(truncated.exit_code, 2) << truncated.output;
  EXPECT_NE(truncated.output.find(dir + "/truncated.json: malformed JSON"), std::string::npos)
      << truncated.output;

  auto report = nlohmann::json::parse(text);
  report["version"] = 99;
  std::ofstream(dir + "/future.json") << report.dump();
  auto future = e2e::RunMmdiff("triage " + dir + "/future.json --out " + dir + "/out");
  EXPECT_EQ(future.exit_code, 2) << future.output;
  EXPECT_NE(future.output.find("report format version 99 is not supported"), std::string::npos)
      << future.output;
  EXPECT_EQ(Read(dir + "/out/triage.md"), before) << "a failed run damaged the earlier output";

  // One bad report among good ones is skipped with a warning and listed, not fatal.
  fs::create_directories(dir + "/good/broken");
  std::ofstream(dir + "/good/broken/report.json") << text.substr(0, 40);
  auto mixed = e2e::RunMmdiff("triage " + dir + "/good --out " + dir + "/out2");
  EXPECT_EQ(mixed.exit_code, 0) << mixed.output;
  EXPECT_NE(mixed.output.find("warning: skipped " + dir + "/good/broken/report.json"),
            std::string::npos)
      << mixed.output;
  EXPECT_NE(Read(dir + "/out2/triage.md").find("broken/report.json: malformed JSON"),
            std::string::npos);

  std::ofstream(dir + "/a-file") << "x";
  auto unwritable = e2e::RunMmdiff("triage " + dir + "/good --out " + dir + "/a-file/out");
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.output;
  EXPECT_NE(unwritable.output.find(dir + "/a-file/out"), std::string::npos) << unwritable.output;

  auto help = e2e::RunMmdiff("triage --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* topic : {"Inputs:", "Outputs", "Ranking:", "Exit codes:", "precision-only"})
    EXPECT_NE(help.output.find(topic), std::string::npos) << topic << "\n" << help.output;
}

}  // namespace
}  // namespace mmdiff
