// Tests for the odds the policy holds that were fixed in the generator before: each switches its
// feature off at 0 and, where it can be forced, on at 1, in programs generated over many seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "src/gen/generator.h"
#include "src/gen/odds_test_util.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

using odds_test::ExpectControls;
using odds_test::Only;
using odds_test::Programs;

int64_t Rank(const Program& prog, const std::string& value) {
  auto types = InferStaticTypes(prog);
  return types.count(value) && types.at(value).shape
             ? static_cast<int64_t>(types.at(value).shape->size())
             : -1;
}

TEST(GeneratorOdds, CastMethod) {
  GenPolicy p;
  p.p_cast = 0.5;
  p.p_glue = 0;       // no int8 + uint8 glue, whose casts are always .to(dtype)
  p.w_attention = 0;  // no cast back after softmax, likewise
  ExpectControls(
      p, &GenPolicy::p_cast_method, "p_cast_method",
      [](const Program&, const Node& n) { return n.op == OpKind::kCast && n.method_spelling; },
      [](const Program&, const Node& n) {
        return n.op == OpKind::kCast && !n.method_spelling && CastMethodName(*n.dtype);
      });
}

TEST(GeneratorOdds, NegativeDim) {
  GenPolicy p;
  p.p_view = 1;
  p.w_attention = 0;  // its kᵀ is written transpose(rank - 2, rank - 1)
  p.w_sdpa = 0;       // its (B, S, H, E) operands are permuted by (0, 2, 1, 3)
  auto dims = [](const Node& n) {
    std::vector<int64_t> d;
    if (n.op == OpKind::kTranspose || n.op == OpKind::kPermute) d = n.ints;
    if (n.op == OpKind::kSlice || n.op == OpKind::kNarrow) d = {n.ints[0]};
    return d;
  };
  ExpectControls(
      p, &GenPolicy::p_negative_dim, "p_negative_dim",
      [&](const Program&, const Node& n) {
        auto d = dims(n);
        return std::any_of(d.begin(), d.end(), [](int64_t x) { return x < 0; });
      },
      [&](const Program&, const Node& n) {
        auto d = dims(n);
        return std::any_of(d.begin(), d.end(), [](int64_t x) { return x >= 0; });
      });
}

TEST(GeneratorOdds, SizeMinusOne) {
  GenPolicy p;
  p.p_view = 1;
  p.p_mask_padding = 0;  // attention's padding mask spells every size of its reshape and expand
  auto minus_one = [](const Node& n) {
    return std::find(n.ints.begin(), n.ints.end(), -1) != n.ints.end();
  };
  ExpectControls(
      p, &GenPolicy::p_size_minus_one, "p_size_minus_one",
      [&](const Program&, const Node& n) {
        return (n.op == OpKind::kReshape || n.op == OpKind::kView || n.op == OpKind::kExpand) &&
               minus_one(n);
      },
      // reshape and view always infer one size at 1 (expand has none to keep where it broadcasts
      // every dim)
      [&](const Program&, const Node& n) {
        return (n.op == OpKind::kReshape || n.op == OpKind::kView) && !minus_one(n);
      });
}

TEST(GeneratorOdds, GlueScale) {
  GenPolicy p;
  p.p_glue = 1;
  p.p_residual = 0;   // a product's residual is an epilogue, not glue
  p.w_attention = 0;  // its own scaling and mask are not glue
  ExpectControls(
      p, &GenPolicy::p_glue_scale, "p_glue_scale",
      [](const Program&, const Node& n) { return n.op == OpKind::kMulScalar; },
      [](const Program&, const Node& n) { return n.op == OpKind::kAdd; });
}

// Added glue: a tensor of the result's shape (a residual) with p_glue_residual, else a row.
TEST(GeneratorOdds, GlueResidual) {
  GenPolicy p;
  p.p_glue = 1;
  p.p_glue_scale = p.p_residual = p.p_view = p.p_cast = 0;
  p.w_attention = 0;
  auto added = [](bool whole) {
    return [whole](const Program& prog, const Node& n) {
      const InputSpec* b = n.op == OpKind::kAdd ? prog.FindInput(n.args[1]) : nullptr;
      if (!b) return false;
      const auto types = InferStaticTypes(prog);
      const auto v = types.find(n.args[0]);
      // A 1-D result's residual and row are alike: only the others tell.
      return v != types.end() && v->second.shape && v->second.shape->size() > 1 &&
             (b->shape == *v->second.shape) == whole;
    };
  };
  ExpectControls(p, &GenPolicy::p_glue_residual, "p_glue_residual", added(true), added(false));
}

TEST(GeneratorOdds, BroadcastBatch) {
  // A batch dim of matmul's b, where a has one too (b shares it), that is 1 (broadcast) while a's
  // is not, or else equal to a's and not 1.
  auto batch_dim = [](bool broadcast) {
    return [broadcast](const Program& prog, const Node& n) {
      if (n.op != OpKind::kMatmul) return false;
      auto types = InferStaticTypes(prog);
      const auto& a = types.at(n.args[0]).shape;
      const auto& b = types.at(n.args[1]).shape;
      if (!a || !b) return false;
      for (size_t i = 3; i <= std::min(a->size(), b->size()); ++i) {
        int64_t da = (*a)[a->size() - i], db = (*b)[b->size() - i];
        if (da != 1 && db == (broadcast ? 1 : da)) return true;
      }
      return false;
    };
  };
  ExpectControls(Only(OpKind::kMatmul), &GenPolicy::p_broadcast_batch, "p_broadcast_batch",
                 batch_dim(true), batch_dim(false));
}

TEST(GeneratorOdds, Attention4d) {
  auto sdpa_of_rank = [](int64_t rank) {
    return [rank](const Program& prog, const Node& n) {
      return n.op == OpKind::kSdpa && Rank(prog, n.args[0]) == rank;
    };
  };
  ExpectControls(Only(OpKind::kSdpa), &GenPolicy::p_attention_4d, "p_attention_4d", sdpa_of_rank(4),
                 sdpa_of_rank(3));
}

// MBart's attention: q's heads merged by view, then torch.bmm with the keys (only where q, k and v
// are 4-D contiguous inputs of one dtype).
TEST(GeneratorOdds, AttentionMergedBmm) {
  GenPolicy p;
  for (const GenOp& op : GenOps()) p.*op.weight = op.key == "w_attention" ? 1 : 0;
  p.p_attention_4d = 1;
  p.p_attention_bshd = p.p_transposed = p.p_chain = p.p_mixed_dtype = p.p_v_float32 = 0;
  auto merged = [](const Program& prog, const Node& n) {
    const Node* q = n.op == OpKind::kBmm ? prog.FindNode(n.args[0]) : nullptr;
    return q && q->op == OpKind::kView && !prog.FindNode(q->args[0]);  // a view of an input
  };
  EXPECT_EQ(Programs(p, merged), 0) << "p_attention_merged_bmm = 0 by default";
  p.p_attention_merged_bmm = 1;
  // Not all: casts, views and other devices of the default policy leave q, k or v no plain input.
  EXPECT_GT(Programs(p, merged), 100);
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const Status verified = Verify(GenerateFromSeed(seed, p));
    EXPECT_TRUE(verified.ok()) << seed << ": " << verified.message();
  }
}

// An sdpa whose query has size `size` at `dim`.
auto QuerySize(size_t dim, int64_t size) {
  return [dim, size](const Program& prog, const Node& n) {
    if (n.op != OpKind::kSdpa) return false;
    auto types = InferStaticTypes(prog);
    auto q = types.find(n.args[0]);
    return q != types.end() && q->second.shape && q->second.shape->at(dim) == size;
  };
}

// 4-D attention's batch: drawn from attention_batch_min to attention_batch_max (the min where the
// max is below it); by default from 1 to 3.
TEST(GeneratorOdds, AttentionBatch) {
  GenPolicy p = Only(OpKind::kSdpa);
  p.p_attention_4d = 1;
  auto batch = [](int64_t b) { return QuerySize(0, b); };
  for (int64_t b : {1, 2, 3}) EXPECT_GT(Programs(p, batch(b)), 0) << "by default, B = " << b;
  p.attention_batch_min = p.attention_batch_max = 1;
  EXPECT_EQ(Programs(p, batch(2)) + Programs(p, batch(3)), 0);
  p.attention_batch_min = 2;
  p.attention_batch_max = 3;
  EXPECT_EQ(Programs(p, batch(1)), 0);
  EXPECT_GT(Programs(p, batch(3)), 0);
  p.attention_batch_min = 4;
  p.attention_batch_max = 1;
  EXPECT_EQ(Programs(p, batch(4)), 400);
}

// 4-D attention's heads: drawn from attention_heads_min to attention_heads_max; by default 1 to 4.
TEST(GeneratorOdds, AttentionHeads) {
  GenPolicy p = Only(OpKind::kSdpa);
  p.p_attention_4d = 1;
  p.p_gqa = 0;
  auto heads = [](int64_t h) { return QuerySize(1, h); };
  for (int64_t h : {1, 2, 4}) EXPECT_GT(Programs(p, heads(h)), 0) << "by default, H = " << h;
  p.attention_heads_min = 2;
  EXPECT_EQ(Programs(p, heads(1)), 0);
  EXPECT_GT(Programs(p, heads(2)), 0);
}

TEST(GeneratorOdds, EvEqualE) {
  GenPolicy p = Only(OpKind::kSdpa);
  // v's last dim Ev differs from q's E (0 cannot rule out that a drawn Ev equals E).
  auto ev_other = [](const Program& prog, const Node& n) {
    if (n.op != OpKind::kSdpa) return false;
    auto types = InferStaticTypes(prog);
    const auto& q = types.at(n.args[0]).shape;
    const auto& v = types.at(n.args[2]).shape;
    return q && v && q->back() != v->back();
  };
  EXPECT_GT(Programs(p, ev_other), 0);
  p.p_ev_equal_e = 1;
  EXPECT_EQ(Programs(p, ev_other), 0);
}

TEST(GeneratorOdds, VFloat32) {
  GenPolicy p = Only(OpKind::kSdpa);
  p.w_float32 = 0;                 // q is never float32, and
  p.p_mixed_dtype = p.p_cast = 0;  // nothing else changes v's dtype
  auto v_is = [](bool float32) {
    return [float32](const Program& prog, const Node& n) {
      return n.op == OpKind::kSdpa &&
             (InferStaticTypes(prog).at(n.args[2]).dtype == DType::kFloat32) == float32;
    };
  };
  ExpectControls(p, &GenPolicy::p_v_float32, "p_v_float32", v_is(true), v_is(false));
}

TEST(GeneratorOdds, MaskBool) {
  GenPolicy p = Only(OpKind::kSdpa);
  p.p_mask = 1;
  p.p_cast = 0;  // a float mask takes q's dtype, which a cast of q may make bool
  auto mask_is = [](bool boolean) {
    return [boolean](const Program& prog, const Node& n) {
      return n.op == OpKind::kSdpa && n.args.size() == 4 &&
             (InferStaticTypes(prog).at(n.args[3]).dtype == DType::kBool) == boolean;
    };
  };
  ExpectControls(p, &GenPolicy::p_mask_bool, "p_mask_bool", mask_is(true), mask_is(false));
}

TEST(GeneratorOdds, SdpaScale) {
  ExpectControls(
      Only(OpKind::kSdpa), &GenPolicy::p_sdpa_scale, "p_sdpa_scale",
      [](const Program&, const Node& n) { return n.op == OpKind::kSdpa && n.scale.has_value(); },
      [](const Program&, const Node& n) { return n.op == OpKind::kSdpa && !n.scale.has_value(); });
}

// sdpa of (B, S, H, E) operands permuted to heads first (_sfdp_pattern_29 and 30).
TEST(GeneratorOdds, SdpaHeadsSecond) {
  GenPolicy p = Only(OpKind::kSdpa);
  p.p_attention_4d = 1;
  p.p_view = p.p_cast = p.p_move = p.p_chain = 0;
  auto q_permuted = [](bool permuted) {
    return [permuted](const Program& prog, const Node& n) {
      return n.op == OpKind::kSdpa && (prog.FindInput(n.args[0]) == nullptr) == permuted;
    };
  };
  ExpectControls(p, &GenPolicy::p_attention_bshd, "p_attention_bshd (sdpa)", q_permuted(true),
                 q_permuted(false));
}

// The input of an additive mask of hand-written attention, or nullptr.
const InputSpec* AddedMask(const Program& prog, const Node& n) {
  return n.op == OpKind::kAdd && n.args.size() == 2 ? prog.FindInput(n.args[1]) : nullptr;
}

// An added mask requires grad with p_mask_grad, not p_requires_grad; float32 with p_mask_float32
// where the scores are 16-bit.
TEST(GeneratorOdds, AddedMasks) {
  GenPolicy p = Only(OpKind::kSoftmax);
  p.p_view = p.p_cast = p.p_move = p.p_chain = p.p_glue = p.p_mixed_dtype = 0;
  p.p_mask = 1;
  p.p_mask_fill = p.p_mask_where = 0;
  p.p_train = 1;
  p.p_requires_grad = 0.5;
  auto mask_grad = [](bool grad) {
    return [grad](const Program& prog, const Node& n) {
      const InputSpec* m = AddedMask(prog, n);
      return m && m->requires_grad == grad;
    };
  };
  ExpectControls(p, &GenPolicy::p_mask_grad, "p_mask_grad", mask_grad(true), mask_grad(false));
  p.p_train = 0;
  p.w_float64 = p.w_float32 = p.w_bfloat16 = 0;  // float16 scores
  auto mask_float32 = [](bool f32) {
    return [f32](const Program& prog, const Node& n) {
      const InputSpec* m = AddedMask(prog, n);
      return m && (m->dtype == DType::kFloat32) == f32;
    };
  };
  ExpectControls(p, &GenPolicy::p_mask_float32, "p_mask_float32 (added)", mask_float32(true),
                 mask_float32(false));
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// Hand-written attention's spellings (the forms Inductor's attention rewrites match): keys
// permuted or transposed, scores divided or multiplied, softmax over the last dim or another.
TEST(GeneratorOdds, AttentionSpellings) {
  GenPolicy p = Only(OpKind::kSoftmax);
  p.p_view = p.p_glue = p.p_cast = p.p_chain = 0;  // q, k and v are inputs, no other views
  p.p_attention_bshd = 0;                          // no permuted operands
  p.p_attention_unscaled = 0;                      // a scaling in every program
  p.p_scale_tensor = 0;                            // by Python floats (mul_scalar, div_scalar)
  // Scalings (masked_fill, eq and full take a scalar too).
  auto HasScalar = [](OpKind k) { return k == OpKind::kMulScalar || k == OpKind::kDivScalar; };
  ExpectControls(
      p, &GenPolicy::p_key_permute, "p_key_permute",
      [](const Program&, const Node& n) { return n.op == OpKind::kPermute; },
      [](const Program&, const Node& n) { return n.op == OpKind::kTranspose; });
  ExpectControls(
      p, &GenPolicy::p_scale_div, "p_scale_div",
      [](const Program&, const Node& n) { return n.op == OpKind::kDivScalar; },
      [](const Program&, const Node& n) { return n.op == OpKind::kMulScalar; });
  p.p_scale_query = 0;
  auto scaled_scores = [&](const Program& prog, const Node& n) {
    if (!HasScalar(n.op)) return false;
    const Node* from = prog.FindNode(n.args[0]);
    return from && (from->op == OpKind::kMatmul || from->op == OpKind::kBmm);
  };
  p.p_attention_unscaled = 0.15;
  ExpectControls(
      p, &GenPolicy::p_attention_unscaled, "p_attention_unscaled",
      [&](const Program& prog, const Node& n) {
        return n.op == OpKind::kSoftmax &&
               std::none_of(prog.nodes.begin(), prog.nodes.end(),
                            [&](const Node& m) { return HasScalar(m.op); });
      },
      [&](const Program&, const Node& n) { return HasScalar(n.op); });
  p.p_attention_unscaled = 0;
  p.p_scale_query = 0.5;
  ExpectControls(
      p, &GenPolicy::p_scale_query, "p_scale_query",
      [&](const Program& prog, const Node& n) {
        return HasScalar(n.op) && prog.FindInput(n.args[0]) != nullptr;
      },
      scaled_scores);
  p.p_attention_4d = 1;
  p.p_key_permute = 0;
  p.p_attention_bshd = 0.3;
  ExpectControls(
      p, &GenPolicy::p_attention_bshd, "p_attention_bshd",
      [](const Program&, const Node& n) {
        return n.op == OpKind::kPermute && n.ints == std::vector<int64_t>{0, 2, 1, 3};
      },
      [](const Program& prog, const Node& n) {
        return n.op == OpKind::kTranspose && prog.FindInput(n.args[0]) != nullptr;
      });
  p.p_attention_4d = 0;
  ExpectControls(
      p, &GenPolicy::p_attention_bmm, "p_attention_bmm",
      [](const Program&, const Node& n) { return n.op == OpKind::kBmm; },
      [](const Program&, const Node& n) { return n.op == OpKind::kMatmul; });
  p.p_softmax_float32 = 1;
  ExpectControls(
      p, &GenPolicy::p_softmax_cast_first, "p_softmax_cast_first",
      [](const Program&, const Node& n) { return n.op == OpKind::kSoftmax && !n.dtype; },
      [](const Program&, const Node& n) { return n.op == OpKind::kSoftmax && n.dtype; });
  auto dropout = [](bool random) {
    return [random](const Program&, const Node& n) {
      return n.op == OpKind::kDropout && random == (n.train && n.dropout_p > 0);
    };
  };
  ExpectControls(
      p, &GenPolicy::p_attention_dropout, "p_attention_dropout",
      [](const Program&, const Node& n) { return n.op == OpKind::kDropout; },
      [](const Program& prog, const Node& n) {
        return n.op == OpKind::kSoftmax &&
               std::none_of(prog.nodes.begin(), prog.nodes.end(),
                            [](const Node& m) { return m.op == OpKind::kDropout; });
      });
  p.p_attention_dropout = 1;
  ExpectControls(p, &GenPolicy::p_dropout_random, "p_dropout_random", dropout(true),
                 dropout(false));
  p.p_attention_dropout = 0;
  // A 16-bit product: v cast (v is an input: no other cast of one here).
  ExpectControls(
      p, &GenPolicy::p_attention_half_product, "p_attention_half_product",
      [](const Program& prog, const Node& n) {
        return n.op == OpKind::kCast && prog.FindInput(n.args[0]) != nullptr;
      },
      [](const Program& prog, const Node& n) {
        return (n.op == OpKind::kMatmul || n.op == OpKind::kBmm) &&
               prog.FindInput(n.args[1]) != nullptr && prog.FindNode(n.args[0]) != nullptr &&
               prog.FindNode(n.args[0])->op != OpKind::kPermute &&
               prog.FindNode(n.args[0])->op != OpKind::kTranspose;
      });
  ExpectControls(
      p, &GenPolicy::p_softmax_other_dim, "p_softmax_other_dim",
      [](const Program&, const Node& n) { return n.op == OpKind::kSoftmax && n.ints[0] >= 0; },
      [](const Program&, const Node& n) { return n.op == OpKind::kSoftmax && n.ints[0] == -1; });
}

// The masks and scales of Inductor's GPT-2 and DistilBert attention patterns.
TEST(GeneratorOdds, AttentionMasksAndTensorScales) {
  GenPolicy p = Only(OpKind::kSoftmax);
  p.p_view = p.p_glue = p.p_cast = p.p_chain = 0;
  p.p_attention_unscaled = 0;
  p.p_mask = 1;
  auto op_is = [](OpKind k) { return [k](const Program&, const Node& n) { return n.op == k; }; };
  ExpectControls(
      p, &GenPolicy::p_scale_tensor, "p_scale_tensor",
      [](const Program&, const Node& n) { return n.op == OpKind::kDiv || n.op == OpKind::kMul; },
      [](const Program&, const Node& n) {
        return n.op == OpKind::kDivScalar || n.op == OpKind::kMulScalar;
      });
  ExpectControls(p, &GenPolicy::p_mask_fill, "p_mask_fill", op_is(OpKind::kMaskedFill),
                 [](const Program& prog, const Node& n) {
                   return n.op == OpKind::kSoftmax &&
                          std::none_of(prog.nodes.begin(), prog.nodes.end(),
                                       [](const Node& m) { return m.op == OpKind::kMaskedFill; });
                 });
  p.p_mask_fill = 0;
  p.p_mask_where_add = 0;
  ExpectControls(p, &GenPolicy::p_mask_where, "p_mask_where", op_is(OpKind::kWhere),
                 op_is(OpKind::kAdd));
  p.p_mask_where = 1;
  p.p_mask_where_add = 0.3;
  ExpectControls(p, &GenPolicy::p_mask_where_add, "p_mask_where_add", op_is(OpKind::kAdd),
                 [](const Program& prog, const Node& n) {
                   return n.op == OpKind::kWhere &&
                          std::none_of(prog.nodes.begin(), prog.nodes.end(),
                                       [](const Node& m) { return m.op == OpKind::kAdd; });
                 });
  p.p_mask_where_add = 0;
  ExpectControls(p, &GenPolicy::p_causal_tril, "p_causal_tril", op_is(OpKind::kTril),
                 [](const Program& prog, const Node& n) {
                   return n.op == OpKind::kWhere && prog.FindInput(n.args[0]) != nullptr;
                 });
  p.p_mask_fill = 1;
  p.p_causal_tril = 0;
  p.p_attention_4d = 1;
  ExpectControls(p, &GenPolicy::p_mask_padding, "p_mask_padding", op_is(OpKind::kEqScalar),
                 [](const Program& prog, const Node& n) {
                   return n.op == OpKind::kMaskedFill && prog.FindInput(n.args[1]) != nullptr;
                 });
  // The fill: -inf, as fuse_attention's masked_fill patterns match, or a finite lowest value.
  ExpectControls(
      p, &GenPolicy::p_mask_fill_inf, "p_mask_fill_inf",
      [](const Program&, const Node& n) {
        return n.op == OpKind::kMaskedFill && std::isinf(n.alpha) && n.alpha < 0;
      },
      [](const Program&, const Node& n) {
        return n.op == OpKind::kMaskedFill && std::isfinite(n.alpha);
      });
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// A cast pair x.to(a).to(b): a cast of a cast.
TEST(GeneratorOdds, CastPair) {
  GenPolicy p = Only(OpKind::kMm);
  p.p_cast = 0.5;
  p.p_glue = 0;
  auto is_cast = [](const Node* n) { return n && n->op == OpKind::kCast; };
  ExpectControls(
      p, &GenPolicy::p_cast_pair, "p_cast_pair",
      [&](const Program& prog, const Node& n) {
        return is_cast(&n) && is_cast(prog.FindNode(n.args[0]));
      },
      [&](const Program& prog, const Node& n) {  // a lone cast: of no cast, cast by none
        return is_cast(&n) && !is_cast(prog.FindNode(n.args[0])) &&
               std::none_of(prog.nodes.begin(), prog.nodes.end(),
                            [&](const Node& m) { return is_cast(&m) && m.args[0] == n.name; });
      });
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// T5's spellings: the scores' cast round trip, the cast back before dropout, keys and values
// returned.
TEST(GeneratorOdds, AttentionT5Forms) {
  GenPolicy p = Only(OpKind::kSoftmax);
  p.p_view = p.p_glue = p.p_cast = p.p_chain = 0;
  p.w_float64 = p.w_float32 = 0;  // 16-bit attention
  p.p_mask = 0;
  p.p_attention_half_product = 0;
  p.p_softmax_float32 = 0;  // no other cast on the way
  auto is_cast = [](const Node* n) { return n && n->op == OpKind::kCast; };
  ExpectControls(
      p, &GenPolicy::p_scores_round_trip, "p_scores_round_trip",
      [&](const Program& prog, const Node& n) {
        return is_cast(&n) && IsHalfFloat(*n.dtype) && is_cast(prog.FindNode(n.args[0]));
      },
      [&](const Program& prog, const Node& n) {
        return n.op == OpKind::kSoftmax && !is_cast(prog.FindNode(n.args[0]));
      });
  p.p_scores_round_trip = 0;
  p.p_softmax_float32 = 1;
  p.p_cast_back = 1;
  p.p_attention_dropout = 1;
  auto dropout_of = [](OpKind k) {
    return [k](const Program& prog, const Node& n) {
      const Node* from = n.op == OpKind::kDropout ? prog.FindNode(n.args[0]) : nullptr;
      return from && from->op == k;
    };
  };
  ExpectControls(p, &GenPolicy::p_cast_back_first, "p_cast_back_first", dropout_of(OpKind::kCast),
                 dropout_of(OpKind::kSoftmax));
  p.p_attention_4d = p.p_attention_bshd = 1;
  auto output = [](const Program& prog, const std::string& name) {
    return std::find(prog.outputs.begin(), prog.outputs.end(), name) != prog.outputs.end();
  };
  ExpectControls(
      p, &GenPolicy::p_attention_kv_outputs, "p_attention_kv_outputs",
      [&](const Program& prog, const Node& n) {
        return n.op == OpKind::kPermute && output(prog, n.name);
      },
      [](const Program& prog, const Node& n) {
        return n.op == OpKind::kSoftmax && prog.outputs.size() == 1;
      });
  // MBart's merged heads: the product viewed (or reshaped) to (B * H, L, Ev), then a linear.
  ExpectControls(
      p, &GenPolicy::p_attention_merge_heads, "p_attention_merge_heads",
      [](const Program& prog, const Node& n) {
        const Node* v = n.op == OpKind::kLinear ? prog.FindNode(n.args[0]) : nullptr;
        return v && (v->op == OpKind::kView || v->op == OpKind::kReshape) &&
               Rank(prog, v->name) == 3 && Rank(prog, v->args[0]) == 4;
      },
      [](const Program& prog, const Node& n) {
        return n.op == OpKind::kSoftmax &&
               std::none_of(prog.nodes.begin(), prog.nodes.end(),
                            [](const Node& m) { return m.op == OpKind::kLinear; });
      });
}

}  // namespace
}  // namespace mmdiff
