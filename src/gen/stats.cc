// Generation statistics.
#include "src/gen/stats.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "src/gen/generator.h"
#include "src/ir/autocast.h"
#include "src/ir/static_types.h"

namespace mmdiff {

namespace {

bool IsScale(OpKind k) {
  return k == OpKind::kMulScalar || k == OpKind::kDivScalar || k == OpKind::kMul ||
         k == OpKind::kDiv;
}

// A mask applied by masked_fill (mask_filled; padding_mask: made by == 0 from a padding vector)
// or torch.where (mask_where); causal_tril: the mask comes from torch.tril.
void MaskSpelling(const Program& p, const Node& m, std::set<std::string>& out) {
  out.insert(m.op == OpKind::kWhere ? "mask_where" : "mask_filled");
  const Node* mask = p.FindNode(m.args[m.op == OpKind::kWhere ? 0 : 1]);
  while (mask && (IsView(mask->op) || mask->op == OpKind::kEqScalar)) {
    if (mask->op == OpKind::kEqScalar && !p.FindNode(mask->args[0])) out.insert("padding_mask");
    mask = p.FindNode(mask->args[0]);
  }
  if (mask && mask->op == OpKind::kTril) out.insert("causal_tril");
}

// An added mask that requires grad (mask_requires_grad), or is float32 where the scores are 16-bit
// (mask_float32_promotes).
void AddedMask(const Program& p, const Node& add, const std::map<std::string, StaticType>& types,
               std::set<std::string>& out) {
  const InputSpec* m = p.FindInput(add.args[1]);
  if (!m) return;
  if (m->requires_grad) out.insert("mask_requires_grad");
  const auto it = types.find(add.args[0]);
  if (m->dtype == DType::kFloat32 && it != types.end() && IsHalfFloat(it->second.dtype))
    out.insert("mask_float32_promotes");
}

// Hand-written attention's spellings, read back from its softmax `n`: what feeds it (through a mask
// add and casts) and how the product before it was scaled; keys permuted rather than transposed,
// products by bmm, a float32 cast before the softmax, a softmax over another dim than the last.
void AttentionSpellings(const Program& p, const Node& n,
                        const std::map<std::string, StaticType>& types,
                        std::set<std::string>& out) {
  if (!n.ints.empty() && n.ints[0] != -1) {
    const auto& t = types.at(n.args[0]);
    if (!t.shape || n.ints[0] != static_cast<int64_t>(t.shape->size()) - 1)
      out.insert("softmax_other_dim");
  }
  const Node* x = p.FindNode(n.args[0]);
  if (x && x->op == OpKind::kCast && !n.dtype) out.insert("softmax_cast_first");
  while (x && (x->op == OpKind::kCast || x->op == OpKind::kAdd || x->op == OpKind::kMaskedFill ||
               x->op == OpKind::kWhere)) {
    if (x->op == OpKind::kMaskedFill || x->op == OpKind::kWhere) MaskSpelling(p, *x, out);
    if (x->op == OpKind::kAdd && x->args.size() == 2) {
      AddedMask(p, *x, types, out);
      if (const Node* w = p.FindNode(x->args[0]); w && w->op == OpKind::kWhere)
        out.insert("mask_where_added");
    }
    // A cast to a 16-bit dtype on the way to the softmax: the scores' round trip (T5).
    if (x->op == OpKind::kCast && x->dtype && IsHalfFloat(*x->dtype))
      out.insert("scores_round_trip");
    x = p.FindNode(x->args[x->op == OpKind::kWhere ? 1 : 0]);
  }
  const bool scores_scaled = x && IsScale(x->op);
  if (scores_scaled) {
    const bool divided = x->op == OpKind::kDivScalar || x->op == OpKind::kDiv;
    out.insert(divided ? "scores_divided" : "scores_multiplied");
    if (x->op == OpKind::kDiv || x->op == OpKind::kMul) out.insert("scale_0d_tensor");
    x = p.FindNode(x->args[0]);
  }
  if (!x || (x->op != OpKind::kMatmul && x->op != OpKind::kBmm)) return;
  if (x->op == OpKind::kBmm) out.insert("bmm_products");
  const Node* q = p.FindNode(x->args[0]);
  if (!scores_scaled) out.insert(q && IsScale(q->op) ? "query_scaled" : "unscaled");
  const Node* kt = p.FindNode(x->args[1]);
  if (kt && kt->op == OpKind::kPermute) out.insert("keys_permuted");
}

// The features of one program, by category.
std::map<std::string, std::set<std::string>> Features(const Program& p, const InputRecipe& r) {
  std::map<std::string, std::set<std::string>> f;
  auto types = InferStaticTypes(p);
  for (const auto& in : p.inputs) {
    f["dtype"].insert(std::string(DTypeName(in.dtype)));
    f["device"].insert(std::string(DeviceName(in.device)));
    f["layout"].insert(std::string(LayoutName(in.layout)));
    for (int64_t d : in.shape) {
      if (d == 0) f["layout"].insert("size_0_dim");
      if (d == 15 || d == 17 || d == 31 || d == 33 || d == 63 || d == 65)
        f["layout"].insert("awkward_size");
    }
    if (in.shape.size() >= 3) f["layout"].insert("batched_operand");
  }
  for (const auto& in : p.inputs)
    if (in.requires_grad)
      f["training"].insert(IsFloating(in.dtype) ? "requires_grad" : "grad_on_non_floating");
  if (Trains(p)) f["training"].insert("backward");
  // Models: their weights, by role, dtype and whether they train.
  for (const auto& in : p.inputs)
    if (IsWeight(in)) {
      f["model"].insert(std::string(InputRoleName(in.role)));
      f["model"].insert(std::string(InputRoleName(in.role)) + "_" +
                        std::string(DTypeName(in.dtype)));
      if (in.requires_grad) f["model"].insert("trained_parameter");
    }
  if (HasWeights(p)) f["model"].insert("model");
  for (const auto& r : p.autocast) {
    f["autocast"].insert(
        std::string(r.parent ? "nested_" : "region_") +
        (r.enabled ? std::string(DeviceName(r.device)) + "_" + std::string(DTypeName(r.dtype))
                   : "disabled"));
  }
  // Ops autocast changes, and a cast-inside-the-region interplay: an explicit cast whose result
  // an autocast op then casts again.
  if (UsesAutocast(p)) {
    AutocastLowering l = LowerAutocast(p);
    if (!l.error_node.empty()) f["autocast"].insert("autocast_error");
    for (const auto& n : l.program.nodes)
      if (n.op == OpKind::kCast && !p.FindNode(n.name)) {
        f["autocast"].insert("autocast_cast");
        if (const Node* src = p.FindNode(n.args[0]); src && src->op == OpKind::kCast)
          f["autocast"].insert("explicit_cast_recast");
      }
  }
  f["value_class"].insert(r.kind);
  if (r.special > 0) f["value_class"].insert("special_values");
  bool mixed = false;
  for (const auto& n : p.nodes) {
    f["op"].insert(std::string(GetOpSpec(n.op).name));
    if (n.op == OpKind::kExpand) f["layout"].insert("stride_0_expand");
    if (n.op == OpKind::kNarrow || n.op == OpKind::kSlice)
      f["layout"].insert("non_contiguous_slice");
    if (n.op == OpKind::kSlice && n.ints.size() == 4 && n.ints[3] > 1)
      f["layout"].insert("strided_slice");
    if (n.op == OpKind::kContiguous) f["layout"].insert("contiguous_copy");
    if (n.op == OpKind::kToDevice)
      f["device"].insert("move_to_" + std::string(DeviceName(*n.device)));
    if (n.op == OpKind::kSdpa) {
      if (n.args.size() == 4)
        f["attention"].insert(types.count(n.args[3]) && types.at(n.args[3]).dtype == DType::kBool
                                  ? "bool_mask"
                                  : "additive_mask");
      if (n.is_causal) f["attention"].insert("is_causal");
      if (n.scale) f["attention"].insert("scale");
      if (n.enable_gqa) f["attention"].insert("enable_gqa");
      if (const Node* q = p.FindNode(n.args[0]); q && q->op == OpKind::kPermute)
        f["attention"].insert("sdpa_of_permuted");
    }
    if (n.op == OpKind::kSoftmax) {
      f["attention"].insert(n.dtype ? "softmax_dtype_" + std::string(DTypeName(*n.dtype))
                                    : "softmax_same_dtype");
      AttentionSpellings(p, n, types, f["attention"]);
    }
    if (n.op == OpKind::kPermute && n.ints == std::vector<int64_t>{0, 2, 1, 3})
      f["attention"].insert("heads_first_permute");
    // MBart's merged heads: a view or reshape of a product, then a linear.
    if (n.op == OpKind::kLinear)
      if (const Node* v = p.FindNode(n.args[0]);
          v && (v->op == OpKind::kView || v->op == OpKind::kReshape))
        if (const Node* out = p.FindNode(v->args[0]);
            out && (out->op == OpKind::kMatmul || out->op == OpKind::kBmm))
          f["attention"].insert("merged_heads_linear");
    if (n.op == OpKind::kDropout) {
      f["attention"].insert(n.train && n.dropout_p > 0 ? "dropout_random" : "dropout_keeps_all");
      const Node* from = p.FindNode(n.args[0]);
      if (from && from->op == OpKind::kCast && p.FindNode(from->args[0]) &&
          p.FindNode(from->args[0])->op == OpKind::kSoftmax)
        f["attention"].insert("cast_back_before_dropout");
    }
    // Epilogues on a product, one that is an output besides, and linears sharing an input.
    if (IsUnaryEpilogue(n.op)) {
      f["epilogue"].insert(std::string(GetOpSpec(n.op).name) + (n.gelu_tanh ? "_tanh" : ""));
      if (const Node* src = p.FindNode(n.args[0]); src && IsMatmulFamily(src->op)) {
        f["epilogue"].insert("on_product");
        if (std::find(p.outputs.begin(), p.outputs.end(), src->name) != p.outputs.end())
          f["epilogue"].insert("product_output");
      }
    }
    if (n.op == OpKind::kAdd)  // a residual on a product: mkldnn's binary fusion
      if (const Node* src = p.FindNode(n.args[0]); src && IsMatmulFamily(src->op)) {
        f["epilogue"].insert("residual");
        if (n.args[1] == src->args[0]) f["epilogue"].insert("residual_is_input");
      }
    if (n.op == OpKind::kLinear)
      for (const auto& m : p.nodes)
        if (&m != &n && m.op == OpKind::kLinear && m.args[0] == n.args[0])
          f["epilogue"].insert("linear_siblings");
    if (n.op == OpKind::kCast)
      if (const Node* src = p.FindNode(n.args[0]); src && src->op == OpKind::kCast)
        f["cast"].insert("cast_pair");
    if (n.op == OpKind::kTranspose || n.op == OpKind::kPermute) f["layout"].insert("permuted_view");
    if (n.op == OpKind::kCast) f["dtype"].insert(std::string(DTypeName(*n.dtype)));
    if (n.op == OpKind::kCast) f["cast"].insert(n.method_spelling ? "method_spelling" : "to_dtype");
    if (n.op == OpKind::kCast || n.op == OpKind::kToDevice || IsView(n.op)) continue;
    std::string pairing;
    std::set<DType> distinct;
    std::vector<std::optional<Shape>> arg_shapes;
    for (const auto& a : n.args) {
      const StaticType& t = types.at(a);
      distinct.insert(t.dtype);
      pairing += (pairing.empty() ? "" : "x") + std::string(DTypeName(t.dtype));
      arg_shapes.push_back(t.shape);
    }
    f["dtype_pairing"].insert(pairing);
    mixed |= distinct.size() > 1;
    // The contracted size of the matmul-family ops, from the first operand's last dim.
    const auto& lhs = arg_shapes[GetOpSpec(n.op).has_alpha_beta ? 1 : 0];
    if (IsMatmulFamily(n.op) && lhs && !lhs->empty()) {
      int64_t k = lhs->back();
      if (k == 0) f["layout"].insert("k_0");
      if (k == 1) f["layout"].insert("k_1");
      if (k >= 128) f["layout"].insert("k_large");
    }
    bool args_known = std::all_of(arg_shapes.begin(), arg_shapes.end(),
                                  [](const auto& s) { return s.has_value(); });
    if (args_known && !types.at(n.name).shape) f["program"].insert("shape_violation");
    if (args_known && n.op == OpKind::kMatmul && arg_shapes[0]->size() >= 3 &&
        arg_shapes[1]->size() >= 3 &&
        Shape(arg_shapes[0]->begin(), arg_shapes[0]->end() - 2) !=
            Shape(arg_shapes[1]->begin(), arg_shapes[1]->end() - 2))
      f["layout"].insert("broadcast_batch");
  }
  if (mixed) f["program"].insert("mixed_dtype_operands");
  f["program"].insert(std::to_string(p.nodes.size()) + "_nodes");
  if (p.outputs.size() > 1) f["program"].insert("several_outputs");
  for (const auto& o : p.outputs)  // attention's keys or values returned, permuted to heads first
    if (const Node* n = p.FindNode(o);
        n && n->op == OpKind::kPermute && n->ints == std::vector<int64_t>{0, 2, 1, 3})
      f["attention"].insert("kv_outputs");
  return f;
}

}  // namespace

GenStats CollectStats(const GenPolicy& policy, uint64_t first_seed, int64_t n) {
  GenStats s;
  for (int64_t i = 0; i < n; ++i) {
    GeneratedCase c = GenerateCaseFromSeed(first_seed + static_cast<uint64_t>(i), policy);
    ++s.programs;
    s.nodes += static_cast<int64_t>(c.program.nodes.size());
    for (const auto& [category, features] : Features(c.program, c.recipe))
      for (const auto& feature : features) ++s.programs_with[category][feature];
  }
  return s;
}

nlohmann::json StatsToJson(const GenStats& s) {
  return {
      {"format", "mmdiff.gen-stats"}, {"version", 1},     {"generator_version", kGeneratorVersion},
      {"programs", s.programs},       {"nodes", s.nodes}, {"programs_with", s.programs_with}};
}

std::string StatsToText(const GenStats& s) {
  std::string out = std::to_string(s.programs) + " programs, " + std::to_string(s.nodes) +
                    " nodes (generator version " + std::to_string(kGeneratorVersion) + ")\n";
  char line[160];
  for (const auto& [category, features] : s.programs_with) {
    out += "\n" + category + " (programs containing it):\n";
    for (const auto& [feature, count] : features) {
      std::snprintf(line, sizeof(line), "  %-40s %8lld  %5.1f%%\n", feature.c_str(),
                    static_cast<long long>(count),
                    100.0 * static_cast<double>(count) /
                        static_cast<double>(std::max<int64_t>(s.programs, 1)));
      out += line;
    }
  }
  return out;
}

}  // namespace mmdiff
