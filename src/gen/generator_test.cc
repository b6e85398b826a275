// Tests for the generator: determinism, validity, and that it reaches the seed bug's region.
#include "src/gen/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "src/ir/op.h"
#include "src/ir/program_json.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

TEST(Generator, SameSeedSameProgram) {
  GenPolicy p;
  for (uint64_t seed = 0; seed < 50; ++seed)
    EXPECT_EQ(GenerateFromSeed(seed, p), GenerateFromSeed(seed, p)) << seed;
  EXPECT_NE(GenerateFromSeed(1, p), GenerateFromSeed(2, p));
}

// 100,000 seeds in the main build (about 10 s); a quarter of them under the sanitizers
// (build-asan), where the 100,000 took 110 s of the CI's time.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MMDIFF_GEN_TEST_SANITIZED 1
#endif
#endif
#ifdef MMDIFF_GEN_TEST_SANITIZED
constexpr uint64_t kManySeeds = 25000;
#else
constexpr uint64_t kManySeeds = 100000;
#endif

TEST(Generator, ManySeedsGiveProgramsThatVerifyAndRoundTrip) {
  GenPolicy p;
  p.max_ops = 6;
  for (uint64_t seed = 0; seed < kManySeeds; ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    Status s = Verify(prog);
    ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << s.message();
    if (seed % 10 != 0) continue;  // JSON round trip on every tenth: it is the slow part
    auto back = ProgramFromJson(ProgramToJson(prog));
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back.value(), prog);
  }
}

// The seed bug's region: a matmul or bmm of rank >= 3 whose two operands differ in dtype.
bool HasMixedBatchedMatmul(const Program& prog) {
  for (const auto& n : prog.nodes) {
    if (n.op != OpKind::kMatmul && n.op != OpKind::kBmm) continue;
    const InputSpec* a = prog.FindInput(n.args[0]);
    const InputSpec* b = prog.FindInput(n.args[1]);
    if (a && b && a->dtype != b->dtype && (a->shape.size() >= 3 || b->shape.size() >= 3))
      return true;
  }
  return false;
}

TEST(Generator, ReachesMixedDtypeBatchedMatmulOften) {
  GenPolicy p;
  int hits = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed)
    hits += HasMixedBatchedMatmul(GenerateFromSeed(seed, p));
  EXPECT_GT(hits, 50);  // a few percent of programs at least
  p.p_mixed_dtype = 0;
  p.p_cast = 0;
  hits = 0;
  for (uint64_t seed = 0; seed < 300; ++seed)
    hits += HasMixedBatchedMatmul(GenerateFromSeed(seed, p));
  EXPECT_EQ(hits, 0);
}

// Whether `bias` expands to `out`, by torch's expand rule.
bool Expands(const Shape& bias, const Shape& out) {
  return InferShape(OpKind::kExpand, {bias}, out).ok();
}

// The product an addmm-family node's bias must expand to, from its matrix operands' shapes (the
// contracted sizes left out, which a violation can make disagree).
Shape ProductShape(OpKind op, const Shape& a, const Shape& b) {
  switch (op) {
    case OpKind::kAddmm:
      return {a[0], b[1]};
    case OpKind::kAddmv:
      return {a[0]};
    case OpKind::kBaddbmm:
      return {a[0], a[1], b[2]};
    default:
      return {a[1], b[2]};  // addbmm
  }
}

// p_bias_violation (or p_shape_violation) gives the addmm family a bias that does not expand to
// the product, in each op; where the product has a dim of size 1, mostly larger in that dim
// (pytorch#195579's form: a two-way broadcast takes it). Without either every bias expands.
TEST(Generator, BiasViolationsGiveABiasThatDoesNotExpandToTheProduct) {
  GenPolicy p;
  p.w_mm = p.w_bmm = p.w_matmul = p.w_mv = p.w_dot = p.w_linear = p.w_sdpa = p.w_attention = 0;
  p.max_ops = 1;
  p.p_view = p.p_move = p.p_cast = 0;
  p.p_shape_violation = 0;
  p.p_bias_violation = 1;
  auto each_bias = [&](const std::function<void(OpKind, const Shape&, const Shape&)>& check) {
    for (uint64_t seed = 0; seed < 400; ++seed) {
      Program prog = GenerateFromSeed(seed, p);
      for (const auto& n : prog.nodes) {
        if (n.op != OpKind::kAddmm && n.op != OpKind::kAddmv && n.op != OpKind::kBaddbmm &&
            n.op != OpKind::kAddbmm)
          continue;
        const InputSpec* bias = prog.FindInput(n.args[0]);
        const InputSpec* a = prog.FindInput(n.args[1]);
        const InputSpec* b = prog.FindInput(n.args[2]);
        if (!bias || !a || !b) continue;
        check(n.op, bias->shape, ProductShape(n.op, a->shape, b->shape));
      }
    }
  };
  std::set<OpKind> violated;
  int with_a_one = 0, at_the_one = 0;
  each_bias([&](OpKind op, const Shape& bias, const Shape& out) {
    EXPECT_FALSE(Expands(bias, out)) << GetOpSpec(op).name;
    violated.insert(op);
    ASSERT_EQ(bias.size(), out.size()) << GetOpSpec(op).name;
    if (std::find(out.begin(), out.end(), 1) == out.end()) return;
    ++with_a_one;
    for (size_t i = 0; i < bias.size(); ++i) at_the_one += out[i] == 1 && bias[i] > 1;
  });
  EXPECT_EQ(violated.size(), 4u);
  EXPECT_GT(with_a_one, 40);
  // 3 in 4 aimed at a dim of size 1, and a uniform pick hits one now and then too.
  EXPECT_GT(at_the_one, with_a_one * 6 / 10) << at_the_one << " of " << with_a_one;
  p.p_bias_violation = 0;
  p.p_shape_violation = 1;
  int shape_violated = 0;
  each_bias(
      [&](OpKind, const Shape& bias, const Shape& out) { shape_violated += !Expands(bias, out); });
  EXPECT_GT(shape_violated, 100);
  p.p_shape_violation = 0;
  int biases = 0;
  each_bias([&](OpKind op, const Shape& bias, const Shape& out) {
    EXPECT_TRUE(Expands(bias, out)) << GetOpSpec(op).name;
    ++biases;
  });
  EXPECT_GT(biases, 100);
}

TEST(Generator, PolicyWeightsSwitchOpsOff) {
  GenPolicy p;
  p.w_mm = p.w_matmul = p.w_addmm = p.w_mv = p.w_dot = p.w_addmv = p.w_baddbmm = p.w_addbmm =
      p.w_linear = 0;
  p.w_sdpa = p.w_attention = 0;
  for (uint64_t seed = 0; seed < 200; ++seed)
    for (const auto& n : GenerateFromSeed(seed, p).nodes)
      EXPECT_TRUE(n.op == OpKind::kBmm || n.op == OpKind::kCast || n.op == OpKind::kToDevice ||
                  IsView(n.op) || IsElementwise(n.op) || IsUnaryEpilogue(n.op))
          << GetOpSpec(n.op).name;
}

TEST(Generator, EveryOpAppears) {
  GenPolicy p;
  std::set<OpKind> seen;
  for (uint64_t seed = 0; seed < 500; ++seed)
    for (const auto& n : GenerateFromSeed(seed, p).nodes) seen.insert(n.op);
  for (OpKind k : AllOpKinds()) EXPECT_TRUE(seen.count(k)) << GetOpSpec(k).name;
}

TEST(Generator, FuzzerBytesAreDeterministicAndFallBack) {
  std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  ByteChoices a(bytes.data(), bytes.size(), 77), b(bytes.data(), bytes.size(), 77);
  GenPolicy p;
  EXPECT_EQ(Generate(a, p), Generate(b, p));
  EXPECT_TRUE(a.exhausted());
  ByteChoices empty(nullptr, 0, 5);
  EXPECT_TRUE(Verify(Generate(empty, p)).ok());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Generator, DevicesFollowThePolicy) {
  GenPolicy p;
  p.p_meta = 0.5;
  p.p_cuda = 0.2;
  std::set<Device> seen;
  for (uint64_t seed = 0; seed < 300; ++seed)
    for (const auto& in : GenerateFromSeed(seed, p).inputs) seen.insert(in.device);
  EXPECT_EQ(seen.size(), 3u);
  p.p_meta = p.p_cuda = p.p_device_mismatch = p.p_move = 0;
  for (uint64_t seed = 0; seed < 300; ++seed)
    for (const auto& in : GenerateFromSeed(seed, p).inputs) ASSERT_EQ(in.device, Device::kCpu);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(Generator, SwarmModeSwitchesFeaturesOffPerProgram) {
  GenPolicy p;
  p.swarm = true;
  p.max_ops = 6;
  int single_op_kind = 0, no_cast = 0;
  std::set<OpKind> all_seen;  // matmul-family ops only
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    ASSERT_TRUE(Verify(prog).ok()) << seed;
    std::multiset<OpKind> ops;
    for (const auto& n : prog.nodes)
      if (IsMatmulFamily(n.op) || n.op == OpKind::kSdpa) ops.insert(n.op);
    all_seen.insert(ops.begin(), ops.end());
    single_op_kind += ops.size() >= 3 && std::set<OpKind>(ops.begin(), ops.end()).size() == 1;
    no_cast += std::none_of(prog.nodes.begin(), prog.nodes.end(),
                            [](const Node& n) { return n.op == OpKind::kCast; });
  }
  EXPECT_EQ(all_seen.size(),
            11u);                 // every op of the matmul family and sdpa still appears somewhere
  EXPECT_GT(single_op_kind, 20);  // but often alone in its program
  GenPolicy plain = p;
  plain.swarm = false;
  int plain_single = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Program prog = GenerateFromSeed(seed, plain);
    std::multiset<OpKind> ops;
    for (const auto& n : prog.nodes)
      if (IsMatmulFamily(n.op) || n.op == OpKind::kSdpa) ops.insert(n.op);
    plain_single += ops.size() >= 3 && std::set<OpKind>(ops.begin(), ops.end()).size() == 1;
  }
  EXPECT_GT(single_op_kind, 2 * plain_single);
  EXPECT_GT(no_cast, 0);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// Every op the generator builds for its own sake (the matmul family, sdpa, and softmax, which only
// hand-written attention emits) has exactly one entry in the op table; helpers it emits around them
// (casts, views, moves, glue) have none.
TEST(GenOps, EveryBuiltOpHasExactlyOneEntry) {
  for (OpKind k : AllOpKinds()) {
    bool built = IsMatmulFamily(k) || k == OpKind::kSdpa || k == OpKind::kSoftmax;
    auto entries = std::count_if(GenOps().begin(), GenOps().end(),
                                 [&](const GenOp& op) { return op.op == k; });
    EXPECT_EQ(entries, built ? 1 : 0) << GetOpSpec(k).name;
  }
}

// Each entry's weight is its own: setting it shows up under its key in the policy JSON and under no
// other entry's.
TEST(GenOps, EachEntryHasItsOwnWeight) {
  for (const GenOp& op : GenOps()) {
    GenPolicy p;
    p.*op.weight = 7.5;
    nlohmann::json j = PolicyToJson(p);
    for (const GenOp& other : GenOps())
      EXPECT_EQ(j.at(std::string(other.key)).get<double>(),
                &other == &op ? 7.5 : GenPolicy().*other.weight)
          << op.key << " set, " << other.key << " read";
  }
}

// Each entry's key and builder build its op: in a policy file with only that key's weight on, every
// program's own ops (the matmul family, sdpa, softmax) are that op (hand-written attention:
// softmax, its two matmuls, and the linear that may project merged heads).
TEST(GenOps, EachKeyAndBuilderBuildItsOp) {
  for (const GenOp& op : GenOps()) {
    nlohmann::json j;
    for (const GenOp& other : GenOps()) j[std::string(other.key)] = &other == &op ? 1 : 0;
    auto policy = PolicyFromJson(j);
    ASSERT_TRUE(policy.ok()) << policy.error();
    const GenPolicy& p = policy.value();
    std::set<OpKind> expected = {op.op};
    // Hand-written attention: its softmax, with products by matmul (or bmm for 3-D operands), and
    // a linear of its merged heads; attention's q, k and v may be linear projections.
    std::set<OpKind> allowed = expected;
    if (op.op == OpKind::kSoftmax)
      allowed = {OpKind::kSoftmax, OpKind::kMatmul, OpKind::kBmm, OpKind::kLinear};
    if (op.op == OpKind::kSdpa) allowed = {OpKind::kSdpa, OpKind::kLinear};
    for (uint64_t seed = 0; seed < 100; ++seed) {
      std::set<OpKind> own;
      for (const auto& n : GenerateFromSeed(seed, p).nodes)
        if (IsMatmulFamily(n.op) || n.op == OpKind::kSdpa || n.op == OpKind::kSoftmax)
          own.insert(n.op);
      ASSERT_TRUE(own.count(op.op)) << op.key << ", seed " << seed;
      for (OpKind k : own) ASSERT_TRUE(allowed.count(k)) << op.key << ", seed " << seed;
    }
  }
}

}  // namespace
}  // namespace mmdiff
