// Tests for the program JSON form: lossless round trip and clear errors on bad input.
#include "src/ir/program_json.h"

#include <gtest/gtest.h>

#include <limits>

#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

Program SeedProgram() {
  Program p;
  p.inputs = {{"x0", {2, 4, 8, 8}, DType::kFloat16, Device::kCpu, Layout::kContiguous},
              {"x1", {2, 4, 8, 64}, DType::kFloat32, Device::kCpu, Layout::kTransposed},
              {"x2", {64}, DType::kFloat32, Device::kCpu, Layout::kContiguous}};
  Node n0{"v0", OpKind::kMatmul, {"x0", "x1"}};
  Node n1{"v1", OpKind::kCast, {"v0"}, DType::kBFloat16};
  Node n2{"v2", OpKind::kAddmm, {"x2", "x0", "x1"}, std::nullopt, 0.1, -2.5};
  p.nodes = {n0, n1, n2};
  p.outputs = {"v1", "v2"};
  return p;
}

TEST(ProgramJson, RoundTripIsLossless) {
  Program p = SeedProgram();
  auto back = ProgramFromJson(ProgramToJson(p));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), p);
  // Through text too, including the non-trivial alpha.
  auto text = ParseProgramText(ProgramToJson(p).dump());
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(text.value().nodes[2].alpha, 0.1);
}

// JSON has no infinities: masked_fill's -inf travels as the string "-inf".
TEST(ProgramJson, InfiniteFillValuesTravelAsStrings) {
  Program p = test_programs::MaskedFill(-std::numeric_limits<double>::infinity());
  p.nodes.push_back({"v1", OpKind::kFull, {"x"}, DType::kBool, 1.0, 1.0, {3, 3}});
  p.nodes.push_back({"v2", OpKind::kTril, {"v1"}, std::nullopt, 1.0, 1.0, {-1}});
  p.outputs = {"v0", "v2"};
  const auto j = ProgramToJson(p);
  EXPECT_EQ(j["nodes"][0]["alpha"], "-inf");
  auto text = ParseProgramText(j.dump());
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(text.value(), p);
  auto bad = j;
  bad["nodes"][0]["alpha"] = "-infinity";
  auto e = ProgramFromJson(bad);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("\"alpha\" must be a number (or \"inf\", \"-inf\")"), std::string::npos)
      << e.error();
}

TEST(ProgramJson, RequiresGradIsWrittenOnlyWhereSetAndMustBeABoolean) {
  Program p = SeedProgram();
  p.inputs[1].requires_grad = true;
  nlohmann::json j = ProgramToJson(p);
  EXPECT_FALSE(j["inputs"][0].contains("requires_grad"));
  EXPECT_EQ(j["inputs"][1]["requires_grad"], true);
  auto back = ProgramFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), p);
  EXPECT_TRUE(Trains(back.value()));
  EXPECT_EQ(GradientInputs(back.value()), (std::vector<size_t>{1}));
  EXPECT_EQ(ResultName(back.value(), 2), "grad(x1)");
  EXPECT_EQ(ResultName(back.value(), 1), "v2");
  EXPECT_NE(p.Summary().find("; backward to x1"), std::string::npos) << p.Summary();
  j["inputs"][1]["requires_grad"] = "yes";
  auto bad = ProgramFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("inputs[1] (x1): \"requires_grad\" must be true or false"),
            std::string::npos)
      << bad.error();
}

TEST(ProgramJson, AWeightsRoleIsWrittenOnlyForAWeightAndMustBeOneOfTheRoles) {
  Program p = test_programs::LinearModel();
  nlohmann::json j = ProgramToJson(p);
  EXPECT_FALSE(j["inputs"][0].contains("role"));  // an input: as programs were before weights
  EXPECT_EQ(j["inputs"][1]["role"], "parameter");
  EXPECT_EQ(j["inputs"][2]["role"], "buffer");
  auto back = ProgramFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), p);
  EXPECT_TRUE(HasWeights(back.value()));
  EXPECT_EQ(ForwardInputs(back.value()), (std::vector<size_t>{0}));
  EXPECT_EQ(p.Summary(), "linear(float32[4, 8], parameter float32[16, 8], buffer float32[16])");
  j["inputs"][0]["role"] = "input";  // written out, the default reads the same
  ASSERT_TRUE(ProgramFromJson(j).ok());
  j["inputs"][1]["role"] = "weight";
  auto bad = ProgramFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("inputs[1] (w): unknown role \"weight\""), std::string::npos)
      << bad.error();
  j["inputs"][1]["role"] = 1;
  EXPECT_FALSE(ProgramFromJson(j).ok());
}

TEST(ProgramJson, ErrorsNameTheOffendingPart) {
  auto j = ProgramToJson(SeedProgram());
  j["nodes"][1]["dtype"] = "float17";
  auto r = ProgramFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("nodes[1] (v1)"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("float17"), std::string::npos);

  j = ProgramToJson(SeedProgram());
  j["version"] = 99;
  r = ProgramFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("version 99"), std::string::npos);
  // A version beyond int is not read modulo 2^32.
  for (const nlohmann::json& v : {nlohmann::json((uint64_t{1} << 32) + kProgramFormatVersion),
                                  nlohmann::json(UINT64_MAX), nlohmann::json(-1)}) {
    j["version"] = v;
    EXPECT_FALSE(ProgramFromJson(j).ok()) << v.dump();
  }

  j = ProgramToJson(SeedProgram());
  j["inputs"][0]["shape"] = {1, "two"};
  EXPECT_FALSE(ProgramFromJson(j).ok());
}

TEST(ProgramJson, MalformedOrTruncatedTextIsAnErrorNotACrash) {
  std::string text = ProgramToJson(SeedProgram()).dump();
  for (size_t cut : {size_t{0}, size_t{1}, text.size() / 2, text.size() - 1}) {
    auto r = ParseProgramText(text.substr(0, cut));
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(ParseProgramText("[1, 2, 3]").ok());
  EXPECT_FALSE(ParseProgramText("{\"format\": \"something-else\"}").ok());
  // Fields of the wrong JSON type (found by fuzz/loader_fuzzer): errors, not exceptions.
  EXPECT_FALSE(ParseProgramText("{\"format\": [7, 1], \"version\": 1}").ok());
  EXPECT_FALSE(
      ParseProgramText("{\"format\": {}, \"program\": {\"format\": \"mmdiff.program\"}}").ok());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(ProgramJson, ReportsAndRegressionEntriesYieldTheirProgram) {
  Program p = SeedProgram();
  nlohmann::json report = {
      {"format", "mmdiff.report"}, {"version", 1}, {"program", ProgramToJson(p)}};
  auto r = ParseProgramText(report.dump());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value(), p);
}

}  // namespace
}  // namespace mmdiff
