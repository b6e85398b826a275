// Tests for issue.md: it holds the repro as repro.py holds it, the versions and the ablation, says
// whether it is a regression or how to find out, and names the catalogue's related entry.
#include "src/issue/issue_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "oracles/case_run_test_cases.h"
#include "src/report/report.h"
#include "src/support/files.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path dir = fs::temp_directory_path() / ("mmdiff-issue-" + std::to_string(getpid()));
  Folder() { fs::remove_all(dir); }
  ~Folder() { fs::remove_all(dir); }
};

CaseRun Finding() {
  CaseRun c = JudgeCase(case_test::Seed(), {"grid16", 3}, case_test::SeedResults());
  c.ablation = Ablation{{{"eager", "eager", "error: RuntimeError: expected same dtype", true, ""},
                         {"aot_eager", "torch.compile(backend=\"aot_eager\"): + AOTAutograd",
                          "error: RuntimeError: expected same dtype", true, ""},
                         {"inductor", "torch.compile(backend=\"inductor\")", "ok (float32)", false,
                          "inductor returns float32"}},
                        "inductor"};
  return c;
}

const RunContext kContext{{{"mmdiff", "0.1.0"}, {"torch", "2.15.0+cu132"}, {"python", "3.11.2"}},
                          {}};

// The text between the first ```python line and the fence that closes it.
std::string CodeBlock(const std::string& md) {
  size_t open = md.find("```python\n");
  if (open == std::string::npos) return "";
  size_t start = open + 10;
  size_t close = md.find("\n```\n", start);
  return close == std::string::npos ? "" : md.substr(start, close + 1 - start);
}

TEST(IssueText, HoldsTheReproTheVersionsAndTheAblation) {
  Folder f;
  ASSERT_TRUE(WriteFinding(f.dir.string(), Finding(), kContext).ok());
  auto sources = ReadIssueSources(f.dir.string());
  ASSERT_TRUE(sources.ok()) << sources.error();
  auto md = IssueMarkdown(sources.value());
  ASSERT_TRUE(md.ok()) << md.error();
  const std::string& text = md.value();
  // The code block is repro.py, byte for byte: it runs as repro.py does.
  EXPECT_EQ(CodeBlock(text), ReadFile((f.dir / "repro.py").string()).value());
  // Titled in PyTorch's words: the ablation's spelling of the path at fault.
  EXPECT_EQ(text.rfind("# torch.compile(backend=\"inductor\") accepts matmul", 0), 0u) << text;
  EXPECT_EQ(text.find("Not advised to file"), std::string::npos);
  const std::string title = text.substr(0, text.find('\n'));
  EXPECT_EQ(title.find("[filable]"), std::string::npos) << title;  // the class is stated apart
  EXPECT_NE(text.find("mmdiff class: [filable]"), std::string::npos);
  EXPECT_NE(text.find("Expected: inductor behaves as eager does: eager raises"), std::string::npos)
      << text;
  for (const char* fact : {"- torch: 2.15.0+cu132", "- Python: 3.11.2", "- OS: ", "- CPU: ",
                           "| torch.compile(backend=\"inductor\") | ok (float32) | no |",
                           "| eager | error: RuntimeError: expected same dtype | yes |"})
    EXPECT_NE(text.find(fact), std::string::npos) << fact << "\n" << text;
  EXPECT_NE(text.find("### Is it a regression?\n\nNot measured. `mmdiff releases"),
            std::string::npos);
  // A class that is no bug to file says so before anything else.
  sources.value().report["filing"] = "by-design";
  sources.value().report["by_design"] = "sdpa keeps the scores in float32";
  auto by_design = IssueMarkdown(sources.value());
  ASSERT_TRUE(by_design.ok());
  EXPECT_NE(by_design.value().find("mmdiff class: [by design: sdpa keeps the scores in float32]\n\n"
                                   "> Not advised to file: a documented behaviour (sdpa keeps"),
            std::string::npos)
      << by_design.value();
}

TEST(IssueText, NamesTheCatalogueEntryItMatches) {
  Folder f;
  CaseRun c = Finding();
  c.unclaimed = KnownRecord{"pytorch#177630: a bmm", "pytorch/pytorch#177630", "entry.json", "back",
                            "expects agreement on torch 2.15.0 (>=2.12.0)"};
  ASSERT_TRUE(WriteFinding(f.dir.string(), c, kContext).ok());
  auto sources = ReadIssueSources((f.dir / "report.json").string());
  ASSERT_TRUE(sources.ok()) << sources.error();
  auto md = IssueMarkdown(sources.value());
  ASSERT_TRUE(md.ok()) << md.error();
  EXPECT_NE(md.value().find("- pytorch#177630: a bmm (pytorch/pytorch#177630): mmdiff's catalogue "
                            "entry `entry.json`, which expects agreement on torch 2.15.0 "
                            "(\\>=2.12.0): this is that bug back, or a form its fix misses."),
            std::string::npos)
      << md.value();
}

TEST(IssueText, AReducedCaseIsFiledAndHostileInputIsRefusedOrDefused) {
  Folder f;
  CaseRun c = Finding();
  ASSERT_TRUE(WriteFinding(f.dir.string(), c, kContext).ok());
  ASSERT_TRUE(WriteFinding((f.dir / "reduced").string(), c, kContext).ok());
  ASSERT_TRUE(WriteFileAtomic((f.dir / "reduced" / "repro.py").string(), "print('```')\n").ok());
  auto sources = ReadIssueSources(f.dir.string());
  ASSERT_TRUE(sources.ok()) << sources.error();
  EXPECT_EQ(fs::path(sources.value().report_path).parent_path().filename(), "reduced");
  auto md = IssueMarkdown(sources.value());
  ASSERT_TRUE(md.ok()) << md.error();
  // A fence longer than the backticks inside keeps the code whole.
  EXPECT_NE(md.value().find("````python\nprint('```')\n````\n"), std::string::npos) << md.value();
  // A headline with newlines and markup stays one line of text.
  sources.value().report["headline"] = "inductor <b>x</b>\n# y [filable]";
  md = IssueMarkdown(sources.value());
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md.value().find("<b>"), std::string::npos);
  EXPECT_EQ(md.value().find("\n# y"), std::string::npos);
  // A repro named outside the folder, a report that is none, one without a divergence: errors.
  auto report = nlohmann::json::parse(ReadFile((f.dir / "report.json").string()).value());
  report["repro"] = "../../etc/passwd";
  ASSERT_TRUE(WriteFileAtomic((f.dir / "report.json").string(), report.dump()).ok());
  EXPECT_FALSE(ReadIssueSources((f.dir / "report.json").string()).ok());
  ASSERT_TRUE(WriteFileAtomic((f.dir / "report.json").string(), "{\"format\": \"x\"}").ok());
  EXPECT_FALSE(ReadIssueSources((f.dir / "report.json").string()).ok());
  EXPECT_FALSE(ReadIssueSources((f.dir / "nope").string()).ok());
  IssueSources agree = sources.value();
  agree.report["verdict"]["divergences"] = nlohmann::json::array();
  EXPECT_FALSE(IssueMarkdown(agree).ok());
}

}  // namespace
}  // namespace mmdiff
