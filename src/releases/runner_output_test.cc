// Tests for reading a release runner's output (untrusted: another process wrote it).
#include "src/releases/runner_output.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

const std::vector<std::string> kPaths = {"eager", "inductor"};
const std::string kHeader = R"({"torch": "2.11.0+cu130", "python": "3.11.2"})"
                            "\n";
// 1.0 and -2.5 as little-endian float64.
const std::string kTwoValues = "000000000000f03f00000000000004c0";

TEST(RunnerOutput, ReadsResultsInPathOrder) {
  std::string text = kHeader +
                     R"({"path": "eager", "outcome": "error", "error_class": "RuntimeError", )"
                     R"("error_type": "builtins.RuntimeError", "message": "expected m1", )"
                     R"("node": "v0", "backward": false, "seconds": 0.5})"
                     "\n"
                     R"({"path": "inductor", "outcome": "ok", "seconds": 2, "outputs": [)"
                     R"({"dtype": "float32", "shape": [1, 2], "device": "cpu", "data": ")" +
                     kTwoValues +
                     R"("}, {"dtype": "float16", "shape": [3], "device": "meta"}]})"
                     "\n";
  auto out = ParseRunnerOutput(text, kPaths);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value().torch, "2.11.0+cu130");
  ASSERT_EQ(out.value().results.size(), 2u);
  const PathResult& eager = out.value().results[0];
  EXPECT_EQ(eager.kind, OutcomeKind::kError);
  EXPECT_EQ(eager.error_class, "RuntimeError");
  EXPECT_EQ(eager.node, "v0");
  const PathResult& inductor = out.value().results[1];
  ASSERT_EQ(inductor.kind, OutcomeKind::kOk);
  ASSERT_EQ(inductor.outputs.size(), 2u);
  EXPECT_EQ(inductor.outputs[0].shape, (Shape{1, 2}));
  EXPECT_EQ(inductor.outputs[0].data, (std::vector<double>{1.0, -2.5}));
  EXPECT_EQ(inductor.outputs[1].device, Device::kMeta);
  EXPECT_TRUE(inductor.outputs[1].data.empty());
}

TEST(RunnerOutput, APathTheReleaseCannotRunIsUnsupported) {
  std::string text = kHeader +
                     R"({"path": "eager", "outcome": "unsupported", "message": "no torch.compile"})"
                     "\n";
  auto out = ParseRunnerOutput(text, kPaths);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value().results[0].kind, OutcomeKind::kUnsupported);
  EXPECT_EQ(out.value().results[0].unsupported, UnsupportedReason::kUnavailable);
  EXPECT_EQ(out.value().results[0].message, "no torch.compile");
}

TEST(RunnerOutput, ALastLineCutShortIsLeftOut) {
  std::string text = kHeader +
                     R"({"path": "eager", "outcome": "ok", "outputs": []})"
                     "\n" +
                     R"({"path": "inductor", "outc)";
  auto out = ParseRunnerOutput(text, kPaths);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value().results.size(), 1u);
}

TEST(RunnerOutput, RejectsWhatDoesNotFit) {
  auto error = [](const std::string& text) {
    auto out = ParseRunnerOutput(text, kPaths);
    return out.ok() ? std::string("(parsed)") : out.status().message();
  };
  EXPECT_NE(error("").find("wrote nothing"), std::string::npos);
  EXPECT_NE(error("{}\n").find("no torch version"), std::string::npos);
  EXPECT_NE(error("not json\n").find("line 1"), std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "inductor", "outcome": "ok", "outputs": []})"
                            "\n")
                .find("where eager was next"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "maybe"})"
                            "\n")
                .find("outcome"),
            std::string::npos);
  EXPECT_NE(error(kHeader +
                  R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": )"
                  R"("float32", "shape": [3], "device": "cpu", "data": ")" +
                  kTwoValues + "\"}]}\n")
                .find("2 values where the shape has 3"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": )"
                            R"("complex64", "shape": [], "device": "cpu", "data": ""}]})"
                            "\n")
                .find("unknown dtype"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": )"
                            R"("float32", "shape": [2], "device": "cpu", "data": )"
                            R"("zz00000000000000zz00000000000000"}]})"
                            "\n")
                .find("hex"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": )"
                            R"("float32", "shape": [-1], "device": "cpu"}]})"
                            "\n")
                .find("shape"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "ok", "outputs": [{"dtype": )"
                            R"("float32", "shape": [1048576, 1048576], "device": "meta"}]})"
                            "\n")
                .find("too many elements"),
            std::string::npos);
  EXPECT_NE(error(kHeader + R"({"path": "eager", "outcome": "error"})"
                            "\n")
                .find("error_class"),
            std::string::npos);
  std::string three = kHeader;
  for (const char* p : {"eager", "inductor", "eager"})
    three += std::string(R"({"path": ")") + p +
             R"(", "outcome": "ok", "outputs": []})"
             "\n";
  EXPECT_NE(error(three).find("more results than paths"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
