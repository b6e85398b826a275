#include "src/ir/attention_chain.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

// softmax(q @ kᵀ / 2 + mask) cast to float16 and dropped out, @ v; the mask is not the chain's.
Program Attention() {
  Program p;
  p.inputs = {{"q", {1, 4, 8}, DType::kFloat16},
              {"k", {1, 4, 8}, DType::kFloat16},
              {"v", {1, 4, 8}, DType::kFloat16},
              {"m", {1, 4, 4}, DType::kFloat16}};
  p.nodes = {{"kt", OpKind::kTranspose, {"k"}},
             {"s", OpKind::kMatmul, {"q", "kt"}},
             {"d", OpKind::kDivScalar, {"s"}, std::nullopt, 2.0},
             {"mm", OpKind::kMulScalar, {"m"}, std::nullopt, 1.0},
             {"a", OpKind::kAdd, {"d", "mm"}},
             {"p", OpKind::kSoftmax, {"a"}},
             {"c", OpKind::kCast, {"p"}, DType::kFloat16},
             {"o", OpKind::kDropout, {"c"}},
             {"out", OpKind::kMatmul, {"o", "v"}}};
  p.nodes[0].ints = {-2, -1};
  p.nodes[5].ints = {-1};
  p.outputs = {"out"};
  return p;
}

TEST(AttentionChain, TheNodesBetweenTheTwoProductsAreFusable) {
  EXPECT_EQ(FusableAttentionNodes(Attention()),
            (std::set<std::string>{"s", "d", "a", "p", "c", "o"}));
}

TEST(AttentionChain, NoChainWithoutAProductOnEachSide) {
  Program no_scores = Attention();
  no_scores.nodes[1].op = OpKind::kAdd;  // q + kᵀ: no product before the softmax
  EXPECT_TRUE(FusableAttentionNodes(no_scores).empty());
  Program no_values = Attention();
  no_values.nodes[8].args = {"v", "o"};  // the probabilities second: not attention's product
  EXPECT_TRUE(FusableAttentionNodes(no_values).empty());
  Program plain;
  plain.inputs = {{"a", {2, 3}, DType::kFloat16}, {"b", {3, 2}, DType::kFloat16}};
  plain.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  plain.outputs = {"v0"};
  EXPECT_TRUE(FusableAttentionNodes(plain).empty());
}

}  // namespace
}  // namespace mmdiff
