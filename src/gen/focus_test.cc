// Tests for the foci: each overlay is a valid policy that moves generation toward its forms.
#include "src/gen/focus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "src/gen/generator.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"

namespace mmdiff {
namespace {

bool IsInteger(DType d) { return !IsFloating(d) && d != DType::kBool; }

// Programs among `n` seeds with a node of kind k.
int WithOp(const GenPolicy& p, OpKind k, int n = 300) {
  int hits = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    hits += std::any_of(prog.nodes.begin(), prog.nodes.end(),
                        [&](const Node& node) { return node.op == k; });
  }
  return hits;
}

// Programs among `n` seeds in _sfdp_pattern_5's form: softmax(q @ k.transpose(-2, -1) / s + m,
// -1) @ v, the scores' dtype throughout (pytorch#174049: on 2.11.0 its fusion dropped s).
int WithDividedMaskedAttention(const GenPolicy& p, int n = 300) {
  int hits = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    Program prog = GenerateFromSeed(seed, p);
    auto producer = [&](const std::string& name, OpKind k) -> const Node* {
      const Node* node = prog.FindNode(name);
      return node && node->op == k ? node : nullptr;
    };
    hits += std::any_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& softmax) {
      if (softmax.op != OpKind::kSoftmax || softmax.ints != std::vector<int64_t>{-1} ||
          softmax.dtype)
        return false;
      const Node* add = producer(softmax.args[0], OpKind::kAdd);
      const Node* div = add ? producer(add->args[0], OpKind::kDivScalar) : nullptr;
      const Node* scores = div ? producer(div->args[0], OpKind::kMatmul) : nullptr;
      return scores && producer(scores->args[1], OpKind::kTranspose) != nullptr;
    });
  }
  return hits;
}

TEST(Focus, EveryOverlayIsAValidPolicyAndTheFirstIsThePolicyAsGiven) {
  ASSERT_GE(Foci().size(), 2u);
  EXPECT_EQ(Foci()[0].name, "as_given");
  GenPolicy base;
  base.swarm = true;
  base.p_cuda = 0.2;
  EXPECT_EQ(Focused(base, 0), base);
  std::set<std::string_view> names;
  for (size_t f = 0; f < Foci().size(); ++f) {
    EXPECT_TRUE(names.insert(Foci()[f].name).second) << Foci()[f].name;
    EXPECT_EQ(FindFocus(Foci()[f].name), f);
    GenPolicy p = Focused(base, f);  // throws on an invalid overlay
    EXPECT_TRUE(p.swarm) << Foci()[f].name << " keeps what it does not set";
    if (f > 0) {
      EXPECT_NE(p, base) << Foci()[f].name;
    }
  }
  EXPECT_FALSE(FindFocus("nonesuch").has_value());
}

TEST(Focus, AttentionFociMakeAttentionAndTheAddmmFocusMakesNone) {
  const GenPolicy base;
  const int as_given = WithOp(base, OpKind::kSoftmax);
  const GenPolicy attention = Focused(base, *FindFocus("attention"));
  EXPECT_GT(WithOp(attention, OpKind::kSoftmax), 2 * as_given);
  EXPECT_EQ(WithOp(attention, OpKind::kToDevice), 0);  // one device: no moves
  const GenPolicy masked = Focused(base, *FindFocus("attention_masked"));
  EXPECT_GT(WithOp(masked, OpKind::kMaskedFill) + WithOp(masked, OpKind::kWhere),
            WithOp(attention, OpKind::kMaskedFill) + WithOp(attention, OpKind::kWhere));
  // The classic spellings: pattern 5's form in about one program in ten (3 of 300 in the
  // attention focus, whose spellings are spread over every fusion's).
  const GenPolicy classic = Focused(base, *FindFocus("attention_classic"));
  EXPECT_GE(WithDividedMaskedAttention(classic), 20);
  EXPECT_GT(WithDividedMaskedAttention(classic), 4 * WithDividedMaskedAttention(attention));
  const GenPolicy addmm = Focused(base, *FindFocus("addmm_family"));
  EXPECT_EQ(WithOp(addmm, OpKind::kSoftmax), 0);
  EXPECT_GT(WithOp(addmm, OpKind::kAddmm), WithOp(base, OpKind::kAddmm));
}

// The deployment focus makes models for inference: every program holds weights, none trains,
// epilogues follow most products, and every case draws a knob variant.
TEST(Focus, TheDeploymentFocusMakesInferenceModelsWithEpilogues) {
  const GenPolicy base;
  const GenPolicy deploy = Focused(base, *FindFocus("deployment"));
  EXPECT_EQ(deploy.variant_rate, 1);
  EXPECT_GT(deploy.w_inductor_max_autotune, base.w_inductor_max_autotune);
  int models = 0, epilogues = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Program p = GenerateFromSeed(seed, deploy);
    EXPECT_FALSE(Trains(p)) << seed;
    models += HasWeights(p);
    epilogues += std::any_of(p.nodes.begin(), p.nodes.end(),
                             [](const Node& n) { return IsUnaryEpilogue(n.op); });
  }
  EXPECT_EQ(models, 200);
  EXPECT_GT(epilogues, 100);
}

// The foci aimed at bugs of a kind write it in most programs, cheaply: two ops at most, no knob
// variant, and cuda operands only in `devices` (without a GPU a cuda program checks nothing but
// the contract). Coverage steering never draws them.
TEST(Focus, TheFociAimedAtBugsWriteTheirKind) {
  const GenPolicy base;
  auto share = [&](const std::string& focus, auto&& has) {
    const GenPolicy p = Focused(base, *FindFocus(focus));
    EXPECT_FALSE(Foci()[*FindFocus(focus)].for_rewrites) << focus;
    EXPECT_EQ(p.variant_rate, 0) << focus;
    EXPECT_LE(p.max_ops, 2) << focus;
    int hits = 0, cuda = 0;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      const Program prog = GenerateFromSeed(seed, p);
      hits += has(prog);
      cuda += std::any_of(prog.inputs.begin(), prog.inputs.end(),
                          [](const InputSpec& in) { return in.device == Device::kCuda; });
    }
    if (focus != "devices") EXPECT_EQ(cuda, 0) << focus;
    return hits;
  };
  auto dtypes = [](const Program& p) {
    std::set<DType> d;
    for (const InputSpec& in : p.inputs) d.insert(in.dtype);
    return d;
  };
  EXPECT_GT(share("mixed_dtypes", [&](const Program& p) { return dtypes(p).size() > 1; }), 150);
  EXPECT_GT(share("mixed_dtypes",
                  [&](const Program& p) {
                    const auto d = dtypes(p);
                    return std::any_of(d.begin(), d.end(),
                                       [](DType t) { return !IsFloating(t); }) ||
                           d.count(DType::kFloat64);
                  }),
            100);
  EXPECT_GT(share("training", [](const Program& p) { return Trains(p); }), 180);
  EXPECT_EQ(share("autocast", [](const Program& p) { return !p.autocast.empty(); }), 200);
  EXPECT_GT(share("devices",
                  [](const Program& p) {
                    return std::any_of(p.inputs.begin(), p.inputs.end(), [](const InputSpec& in) {
                      return in.device != Device::kCpu;
                    });
                  }),
            120);
}

// The arms aimed at integer products, special values and sdpa write the conjunctions their bugs
// need (pytorch#191308: an int8 bmm with M = 1; #196596: a one-row addmm with beta = 0 and a NaN
// in its input; #195579: a one-row addmm whose bias has more rows; #185539: a causal float64 sdpa
// in training), each in many of their programs.
TEST(Focus, TheIntegerSpecialValueAndSdpaFociWriteTheirConjunctions) {
  const GenPolicy base;
  auto count = [&](const char* focus, auto&& has) {
    const GenPolicy p = Focused(base, *FindFocus(focus));
    EXPECT_FALSE(Foci()[*FindFocus(focus)].for_rewrites) << focus;
    int hits = 0;
    for (uint64_t seed = 0; seed < 200; ++seed) hits += has(GenerateCaseFromSeed(seed, p));
    return hits;
  };
  auto product_with_a_one = [](const GeneratedCase& c, OpKind k) {
    return std::any_of(c.program.nodes.begin(), c.program.nodes.end(), [&](const Node& n) {
      if (n.op != k) return false;
      const InputSpec* a = c.program.FindInput(n.args[0]);
      return a && IsInteger(a->dtype) && a->shape.size() >= 2 && a->shape[a->shape.size() - 2] == 1;
    });
  };
  EXPECT_GT(count("integers",
                  [&](const GeneratedCase& c) {
                    return std::all_of(c.program.inputs.begin(), c.program.inputs.end(),
                                       [](const InputSpec& in) { return IsInteger(in.dtype); });
                  }),
            100);
  EXPECT_GT(count("integers",
                  [&](const GeneratedCase& c) {
                    return product_with_a_one(c, OpKind::kBmm) ||
                           product_with_a_one(c, OpKind::kMm);
                  }),
            10);
  EXPECT_GT(count("special_values",
                  [](const GeneratedCase& c) {
                    const bool ignored = std::any_of(
                        c.program.nodes.begin(), c.program.nodes.end(),
                        [](const Node& n) { return n.op == OpKind::kAddmm && n.beta == 0; });
                    return ignored && c.recipe.special > 0;
                  }),
            40);
  EXPECT_GT(count("special_values",
                  [](const GeneratedCase& c) {
                    const auto types = InferStaticTypes(c.program);
                    auto shape = [&](const std::string& v) {
                      auto t = types.find(v);
                      return t == types.end() || !t->second.shape ? Shape{} : *t->second.shape;
                    };
                    return std::any_of(
                        c.program.nodes.begin(), c.program.nodes.end(), [&](const Node& n) {
                          if (n.op != OpKind::kAddmm) return false;
                          const Shape bias = shape(n.args[0]), a = shape(n.args[1]);
                          return a.size() == 2 && a[0] == 1 && bias.size() == 2 && bias[0] > 1;
                        });
                  }),
            5);
  EXPECT_GT(count("sdpa",
                  [](const GeneratedCase& c) {
                    const auto& in = c.program.inputs;
                    const auto& nodes = c.program.nodes;
                    return Trains(c.program) &&
                           std::any_of(
                               in.begin(), in.end(),
                               [](const InputSpec& i) { return i.dtype == DType::kFloat64; }) &&
                           std::any_of(nodes.begin(), nodes.end(), [](const Node& n) {
                             return n.op == OpKind::kSdpa && n.is_causal;
                           });
                  }),
            35);
}

// Each target focus writes its fusion's variant: 16-bit operands for _half (float32 otherwise), a
// float32 mask for _mask_fp32, batch 1 for _bs1 (2 or 3 where the operands are permuted and it is
// not a _bs1 form), grads for _training (none for _inference), and sdpa for the fusions that fold
// its decomposition back (29, 30), hand-written attention for the others.
TEST(Focus, TargetFociWriteTheirFusionsVariant) {
  size_t targets = 0;
  for (size_t f = 0; f < Foci().size(); ++f) {
    const Focus& focus = Foci()[f];
    if (focus.target.empty()) continue;
    ++targets;
    const std::string& t = focus.target;
    EXPECT_EQ(focus.name, "target_" + t.substr(t.starts_with("_") ? 1 : 0));
    if (!t.starts_with("_sfdp_pattern_")) continue;
    const bool half = t.find("_half") != std::string::npos;
    const bool mask32 = t.find("_mask_fp32") != std::string::npos;
    const bool bs1 = t.find("_bs1") != std::string::npos;
    const bool training = t.ends_with("_training");
    const bool sdpa = t.starts_with("_sfdp_pattern_29_") || t.starts_with("_sfdp_pattern_30_");
    const GenPolicy p = Focused(GenPolicy{}, f);
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const Program prog = GenerateFromSeed(seed, p);
      ASSERT_TRUE(Verify(prog).ok()) << t << " seed " << seed << ": " << Verify(prog).message();
      ASSERT_FALSE(prog.inputs.empty()) << t;
      const InputSpec& q = prog.inputs[0];
      EXPECT_EQ(IsHalfFloat(q.dtype), half) << t << " seed " << seed;
      if (!half) {
        EXPECT_EQ(q.dtype, DType::kFloat32) << t << " seed " << seed;
      }
      EXPECT_EQ(q.requires_grad, training) << t << " seed " << seed;
      const Node& first = prog.nodes.front();  // (B, S, H, E) operands: q permuted first
      const bool bshd = first.op == OpKind::kPermute && first.args[0] == q.name &&
                        first.ints == std::vector<int64_t>{0, 2, 1, 3};
      if (q.shape.size() == 4 && (bs1 || bshd)) {
        EXPECT_EQ(q.shape[0] == 1, bs1) << t << " seed " << seed;
      }
      if (mask32) {
        EXPECT_TRUE(std::any_of(prog.inputs.begin() + 1, prog.inputs.end(),
                                [](const InputSpec& in) { return in.dtype == DType::kFloat32; }))
            << t << " seed " << seed;
      }
      auto has = [&](OpKind k) {
        return std::any_of(prog.nodes.begin(), prog.nodes.end(),
                           [&](const Node& n) { return n.op == k; });
      };
      EXPECT_EQ(has(OpKind::kSdpa), sdpa) << t << " seed " << seed;
      EXPECT_EQ(has(OpKind::kSoftmax), !sdpa) << t << " seed " << seed;
    }
  }
  EXPECT_GE(targets, 90u);
  // post_grad.addmm's form, torch.mm(a, b) + a tensor, in the programs of two ops (about half).
  const GenPolicy addmm = Focused(GenPolicy{}, *FindFocus("target_post_grad.addmm"));
  int with_bias = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Program prog = GenerateFromSeed(seed, addmm);
    with_bias += std::any_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& n) {
      const Node* mm = n.op == OpKind::kAdd ? prog.FindNode(n.args[0]) : nullptr;
      return mm && mm->op == OpKind::kMm;
    });
  }
  EXPECT_GE(with_bias, 12);
  // pointless_view's form, a 1-D input viewed or reshaped to (-1), in about half of the programs.
  const GenPolicy view = Focused(GenPolicy{}, *FindFocus("target_joint_graph.pointless_view"));
  int with_view = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Program prog = GenerateFromSeed(seed, view);
    with_view += std::any_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& n) {
      return (n.op == OpKind::kView || n.op == OpKind::kReshape) &&
             n.ints == std::vector<int64_t>{-1};
    });
  }
  EXPECT_GE(with_view, 12);
}

// Each deployment target focus writes a model whose products' weights are parameters, drawn for
// its variant alone on every program, in its form: a float32 linear with the epilogue its mkldnn
// post-op fuses, three linears on one input for the concatenated linears, a linear scaled before
// the next op for binary folding, a product in the micro-kernel's dtype, 2-D linear inputs for the
// bias folding.
TEST(Focus, DeploymentTargetFociWriteTheirForms) {
  size_t deployment = 0;
  for (size_t f = 0; f < Foci().size(); ++f) {
    const Focus& focus = Foci()[f];
    if (focus.target.empty() || focus.target.starts_with("_sfdp_pattern_") ||
        focus.target == "post_grad.addmm" || focus.target == "joint_graph.pointless_view")
      continue;
    ++deployment;
    const std::string& t = focus.target;
    EXPECT_EQ(focus.name, "target_" + t);
    const GenPolicy p = Focused(GenPolicy{}, f);
    EXPECT_EQ(p.variant_rate, 1) << t;
    std::string variant;
    for (const VariantWeight& v : VariantWeights())
      if (p.*v.weight > 0) {
        EXPECT_TRUE(variant.empty()) << t << ": two variants";
        variant = std::string(v.key.substr(2));
      }
    EXPECT_FALSE(variant.empty()) << t;
    const bool mkldnn = t.find("mkldnn") != std::string::npos;
    if (mkldnn) {
      EXPECT_EQ(variant, "inductor_freezing_dynamic") << t;
    }
    if (t.starts_with("lowering:micro_gemm") || t.starts_with("lowering:template")) {
      EXPECT_EQ(variant, "inductor_max_autotune") << t;
    }
    const bool freezing = t.starts_with("freezing_patterns") || t.starts_with("binary_folding");
    if (freezing) {
      EXPECT_EQ(variant, "inductor_freezing_opt_in") << t;
    }
    const bool bias_folding =
        t.find("_recover_linear.locals.linear_bias_pattern") != std::string::npos;
    int epilogue = 0, siblings = 0, equal_siblings = 0, scaled = 0, programs = 0, shared = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      const Program prog = GenerateFromSeed(seed, p);
      ASSERT_TRUE(Verify(prog).ok()) << t << " seed " << seed << ": " << Verify(prog).message();
      EXPECT_TRUE(std::any_of(prog.inputs.begin(), prog.inputs.end(), IsWeight))
          << t << " seed " << seed;
      EXPECT_FALSE(std::any_of(prog.inputs.begin(), prog.inputs.end(),
                               [](const InputSpec& in) { return in.requires_grad; }))
          << t << " seed " << seed;
      if (mkldnn) {
        for (const InputSpec& in : prog.inputs) EXPECT_EQ(in.dtype, DType::kFloat32) << t;
      }
      // Each fresh linear input: a batch for freezing's forms (a 1-D input makes mv, which no
      // freezing pattern matches, and mkldnn packs no linear of one), of 2 or more for mkldnn (a
      // batch of 1 is specialized), and only one for the bias folding (a batched input's reshapes
      // would hide the bias add from it).
      for (const Node& n : prog.nodes) {
        const InputSpec* x = n.op == OpKind::kLinear ? prog.FindInput(n.args[0]) : nullptr;
        if (!x || !(mkldnn || freezing)) continue;
        EXPECT_GE(x->shape.size(), 2u) << t << " seed " << seed;
        if (mkldnn) {
          EXPECT_GE(x->shape[0], 2) << t << " seed " << seed << ": a batch of 1 is specialized";
        }
        if (bias_folding) {
          EXPECT_EQ(x->shape.size(), 2u) << t << " seed " << seed;
        }
      }
      // The BMM template's forms: bmm, or matmul of operands of 3 dimensions or more (a 1-D one
      // makes mv and a 2-D one mm, which no BMM template takes).
      if (t.ends_with("CppBmmTemplate")) {
        for (const Node& n : prog.nodes)
          for (const std::string& arg : n.args) {
            const InputSpec* in = IsMatmulFamily(n.op) ? prog.FindInput(arg) : nullptr;
            if (in) EXPECT_GE(in->shape.size(), 3u) << t << " seed " << seed;
          }
      }
      const std::string dtype = t.substr(t.rfind('.') + 1);
      if (t.starts_with("lowering:micro_gemm.")) {
        EXPECT_EQ(DTypeName(prog.inputs[0].dtype), dtype) << t << " seed " << seed;
      }
      int linears = 0;
      std::set<Shape> weight_shapes;
      for (const Node& n : prog.nodes) {
        epilogue += IsUnaryEpilogue(n.op);
        linears += n.op == OpKind::kLinear;
        if (n.op == OpKind::kLinear) weight_shapes.insert(prog.FindInput(n.args[1])->shape);
        const Node* before = n.args.empty() ? nullptr : prog.FindNode(n.args[0]);
        scaled += n.op == OpKind::kMulScalar && before && before->op == OpKind::kLinear;
      }
      siblings += linears >= 2;
      equal_siblings += linears >= 2 && weight_shapes.size() == 1;
      // The product returned as well as the epilogue on it.
      for (const Node& n : prog.nodes)
        shared +=
            IsMatmulFamily(n.op) &&
            std::find(prog.outputs.begin(), prog.outputs.end(), n.name) != prog.outputs.end() &&
            std::any_of(prog.nodes.begin(), prog.nodes.end(), [&](const Node& m) {
              return IsUnaryEpilogue(m.op) && !m.args.empty() && m.args[0] == n.name;
            });
      ++programs;
    }
    const bool post_op = mkldnn && t.find(":none") == std::string::npos &&
                         t.find("binary:add") == std::string::npos &&
                         t.find("_recover_linear") == std::string::npos;
    if (post_op) {
      EXPECT_GE(epilogue, programs) << t << ": every product gets the epilogue";
    }
    if (t.starts_with("freezing_patterns") || t == "lowering:template.CppGroupedGemmTemplate") {
      EXPECT_EQ(siblings, programs) << t << ": linears sharing an input in every program";
      // Of one weight size, which 2.11's concatenation needs, in a good share of them.
      EXPECT_GE(3 * equal_siblings, programs) << t;
    }
    if (t.starts_with("lowering:template_shared_product.")) {
      EXPECT_EQ(shared, programs) << t << ": a product and its epilogue both returned";
    }
    if (t.starts_with("binary_folding")) {
      EXPECT_EQ(scaled, programs) << t << ": a linear scaled in every program";
    }
  }
  EXPECT_GE(deployment, 25u);
}

}  // namespace
}  // namespace mmdiff
