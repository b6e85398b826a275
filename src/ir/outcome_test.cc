// Tests for PathResult serialisation, including non-finite values through MessagePack.
#include "src/ir/outcome.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mmdiff {
namespace {

TEST(Outcome, MsgpackRoundTripKeepsNonFiniteValues) {
  PathResult r;
  r.path = "eager";
  r.kind = OutcomeKind::kOk;
  r.outputs.push_back({DType::kFloat16, {2}, Device::kCpu, {NAN, -INFINITY}, {}});
  auto bytes = nlohmann::json::to_msgpack(PathResultToJson(r, true));
  auto back = PathResultFromJson(nlohmann::json::from_msgpack(bytes));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(std::isnan(back.value().outputs[0].data[0]));
  EXPECT_EQ(back.value().outputs[0].data[1], -INFINITY);
  EXPECT_EQ(back.value().outputs[0].dtype, DType::kFloat16);
}

TEST(Outcome, TheReferencesAlsoBitsTravelAndBadOnesAreRejected) {
  PathResult r{"reference", OutcomeKind::kOk};
  r.outputs.push_back(
      {DType::kFloat32, {2}, Device::kCpu, {1.0, NAN}, {0.5, 0}, {kAlsoPosInf | kAlsoNaN, 0}});
  nlohmann::json j =
      nlohmann::json::from_msgpack(nlohmann::json::to_msgpack(PathResultToJson(r, true)));
  auto back = PathResultFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().outputs[0].also, (std::vector<uint8_t>{kAlsoPosInf | kAlsoNaN, 0}));
  nlohmann::json bad = j;
  bad["outputs"][0]["also"] = {9, 0};  // no such bit
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad["outputs"][0]["also"] = {1};  // one per element
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad = j;
  bad["outputs"][0]["bound"] = {0.5};  // a bound per element, or none
  EXPECT_FALSE(PathResultFromJson(bad).ok());
}

TEST(Outcome, OnTheWireValuesAreBinariesAndMalformedOnesAreRejected) {
  PathResult r{"reference", OutcomeKind::kOk};
  r.outputs.push_back({DType::kFloat32,
                       {3},
                       Device::kCpu,
                       {1.5, -0.0, 1e300},
                       {0, 0.25, INFINITY},
                       {0, kAlsoNaN, 0}});
  nlohmann::json j = PathResultToJson(r, true);
  ASSERT_TRUE(j["outputs"][0]["data"].is_binary());
  EXPECT_EQ(j["outputs"][0]["data"].get_binary().size(), 3 * sizeof(double));
  auto back = PathResultFromJson(nlohmann::json::from_msgpack(nlohmann::json::to_msgpack(j)));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().outputs[0].data, r.outputs[0].data);
  EXPECT_TRUE(std::signbit(back.value().outputs[0].data[1]));
  EXPECT_EQ(back.value().outputs[0].bound, r.outputs[0].bound);
  EXPECT_EQ(back.value().outputs[0].also, r.outputs[0].also);
  // An array of numbers is still read (a report's form).
  nlohmann::json arrays = j;
  arrays["outputs"][0]["data"] = {1.5, 0.0, 2.0};
  arrays["outputs"][0]["also"] = {0u, 1u, 0u};
  ASSERT_TRUE(PathResultFromJson(arrays).ok());
  nlohmann::json bad = j;
  bad["outputs"][0]["data"] = nlohmann::json::binary({1, 2, 3});  // not whole doubles
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad = j;
  bad["outputs"][0]["bound"] = nlohmann::json::binary(nlohmann::json::binary_t::container_type(8));
  EXPECT_FALSE(PathResultFromJson(bad).ok());  // one bound for three values
  bad = j;
  bad["outputs"][0]["also"] = nlohmann::json::binary({0, 8, 0});  // no such bit
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad = j;
  bad["outputs"][0]["data"] = {1.0, "x", 2.0};
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad["outputs"][0]["data"] = "values";
  EXPECT_FALSE(PathResultFromJson(bad).ok());
}

TEST(Outcome, ErrorsAndCrashesCarryTheirDetails) {
  PathResult r{"inductor", OutcomeKind::kCrash};
  r.stage = "compile";
  r.signal = 11;
  auto back = PathResultFromJson(PathResultToJson(r, false));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().stage, "compile");
  EXPECT_EQ(back.value().signal, 11);
  EXPECT_FALSE(PathResultFromJson({{"path", "x"}, {"outcome", "exploded"}}).ok());
  EXPECT_FALSE(PathResultFromJson(nlohmann::json::array()).ok());
}

TEST(Outcome, AnErrorNamesTheNodeThatRaisedWhereThePathKnowsIt) {
  PathResult r{"eager", OutcomeKind::kError};
  r.error_class = "RuntimeError";
  r.node = "w0";
  nlohmann::json j = PathResultToJson(r, false);
  EXPECT_EQ(j["node"], "w0");
  auto back = PathResultFromJson(j);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().node, "w0");
  PathResult unknown{"inductor", OutcomeKind::kError};
  EXPECT_FALSE(PathResultToJson(unknown, false).contains("node"));
  j["node"] = 7;  // from a hostile worker or file: an error, not a crash
  EXPECT_FALSE(PathResultFromJson(j).ok());
}

TEST(Outcome, CompileInfoRoundTripsAndIsAbsentForPathsThatDoNotCompile) {
  PathResult r{"inductor", OutcomeKind::kOk};
  r.compile.present = true;
  r.compile.compiled = true;
  r.compile.reused = true;
  r.compile.fx_cache_hits = 2;
  r.compile.fx_cache_misses = 1;
  r.compile.internals = {"extern:mm", "fused:1"};
  auto back = PathResultFromJson(PathResultToJson(r, false));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back.value().compile.present);
  EXPECT_TRUE(back.value().compile.compiled);
  EXPECT_TRUE(back.value().compile.reused);
  EXPECT_EQ(back.value().compile.fx_cache_hits, 2);
  EXPECT_EQ(back.value().compile.fx_cache_misses, 1);
  EXPECT_EQ(back.value().compile.internals, r.compile.internals);
  PathResult eager{"eager", OutcomeKind::kOk};
  EXPECT_FALSE(PathResultToJson(eager, false).contains("compile"));
  EXPECT_FALSE(PathResultFromJson(PathResultToJson(eager, false)).value().compile.present);
}

TEST(Outcome, CompilePhasesTravelOnTheWireOnlyAndBadOnesAreRejected) {
  PathResult r{"inductor", OutcomeKind::kOk};
  r.compile.present = true;
  r.compile.phases.dynamo = 0.25;
  r.compile.phases.cpp_compile = 1.5;
  nlohmann::json wire = PathResultToJson(r, true);
  auto back = PathResultFromJson(wire);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().compile.phases.dynamo, 0.25);
  EXPECT_EQ(back.value().compile.phases.cpp_compile, 1.5);
  EXPECT_FALSE(PathResultToJson(r, false)["compile"].contains("phases"));
  wire["compile"]["phases"]["run"] = -1;  // from a hostile worker: an error naming the part
  auto bad = PathResultFromJson(wire);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("\"run\""), std::string::npos) << bad.error();
}

TEST(Outcome, TheUnsupportedReasonTravelsOnTheWireOnlyAndBadOnesAreRejected) {
  PathResult r{"eager", OutcomeKind::kUnsupported};
  r.unsupported = UnsupportedReason::kNoGpu;
  r.message = "program uses cuda and this machine has no GPU";
  nlohmann::json wire =
      nlohmann::json::from_msgpack(nlohmann::json::to_msgpack(PathResultToJson(r, true)));
  EXPECT_EQ(wire["unsupported_reason"], "no_gpu");
  auto back = PathResultFromJson(wire);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().unsupported, UnsupportedReason::kNoGpu);
  // Reports keep the message only: read back, the reason is not known.
  nlohmann::json report = PathResultToJson(r, false);
  EXPECT_FALSE(report.contains("unsupported_reason"));
  EXPECT_EQ(PathResultFromJson(report).value().unsupported, UnsupportedReason::kNone);
  // The traits travel in neither: the worker publishes them once, in its hello.
  r.traits.compiled = true;
  EXPECT_FALSE(PathResultFromJson(PathResultToJson(r, true)).value().traits.compiled);
  // From a hostile worker: an unknown reason, one of another type, or one on a result that ran.
  nlohmann::json bad = wire;
  bad["unsupported_reason"] = "no GPU";
  auto unknown = PathResultFromJson(bad);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown unsupported reason \"no GPU\""), std::string::npos)
      << unknown.error();
  bad["unsupported_reason"] = 1;
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  bad = wire;
  bad["outcome"] = "crash";
  EXPECT_FALSE(PathResultFromJson(bad).ok());
  // A result that ran carries no reason on the wire.
  PathResult ok{"eager", OutcomeKind::kOk};
  ok.unsupported = UnsupportedReason::kNoGpu;
  EXPECT_FALSE(PathResultToJson(ok, true).contains("unsupported_reason"));
}

}  // namespace
}  // namespace mmdiff
