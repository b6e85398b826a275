// Metamorphic variants and their check.
#include "oracles/metamorphic.h"

#include <cmath>
#include <cstdio>

#include "oracles/tolerance.h"
#include "src/ir/static_types.h"

namespace mmdiff {

namespace {

// Appends a node and returns its name.
std::string Add(Program& p, OpKind op, std::vector<std::string> args,
                std::vector<int64_t> ints = {}, double alpha = 1.0) {
  Node n{"m" + std::to_string(p.nodes.size()), op, std::move(args)};
  n.ints = std::move(ints);
  n.alpha = alpha;
  p.nodes.push_back(n);
  return p.nodes.back().name;
}

// The product the addmm-family node scales: mm, mv or bmm.
OpKind ProductOf(OpKind k) {
  return k == OpKind::kAddmm ? OpKind::kMm : k == OpKind::kAddmv ? OpKind::kMv : OpKind::kBmm;
}

// Flattened values of every output, concatenated.
std::vector<double> Flat(const PathResult& r) {
  std::vector<double> v;
  for (const auto& o : r.outputs) v.insert(v.end(), o.data.begin(), o.data.end());
  return v;
}
std::vector<double> FlatBounds(const PathResult& r) {
  std::vector<double> v;
  for (const auto& o : r.outputs) {
    if (o.bound.size() == o.data.size())
      v.insert(v.end(), o.bound.begin(), o.bound.end());
    else
      v.insert(v.end(), o.data.size(), INFINITY);
  }
  return v;
}

// The reference's also bits of every output, concatenated (0 where it sends none).
std::vector<uint8_t> FlatAlso(const PathResult& r) {
  std::vector<uint8_t> v;
  for (const auto& o : r.outputs) {
    if (o.also.size() == o.data.size())
      v.insert(v.end(), o.also.begin(), o.also.end());
    else
      v.insert(v.end(), o.data.size(), 0);
  }
  return v;
}

}  // namespace

std::vector<MetamorphicVariant> MetamorphicVariants(const Program& p) {
  std::vector<MetamorphicVariant> out;
  // The rewrites are plain programs: under autocast they would compute in other dtypes.
  if (p.nodes.size() != 1 || p.outputs.size() != 1 || !p.autocast.empty()) return out;
  const Node& n = p.nodes[0];
  auto types = InferStaticTypes(p);
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const auto& a : n.args) {
    const StaticType& t = types.at(a);
    if (!t.shape) return out;
    dtypes.push_back(t.dtype);
    shapes.push_back(*t.shape);
  }
  for (DType d : dtypes)
    if (d != dtypes[0] || !IsFloating(d)) return out;
  auto shape = InferShape(n.op, shapes, n.ints);
  if (!shape.ok()) return out;
  Program base = p;
  base.nodes.clear();
  base.outputs.clear();
  if (n.op == OpKind::kMm) {  // (A·B)ᵀ = Bᵀ·Aᵀ
    Program v = base;
    std::string bt = Add(v, OpKind::kTranspose, {n.args[1]}, {0, 1});
    std::string at = Add(v, OpKind::kTranspose, {n.args[0]}, {0, 1});
    std::string m = Add(v, OpKind::kMm, {bt, at});
    v.outputs = {Add(v, OpKind::kTranspose, {m}, {0, 1})};
    out.push_back({"transpose", v});
  }
  if (n.op == OpKind::kAddmm || n.op == OpKind::kAddmv ||
      n.op == OpKind::kBaddbmm) {  // β·C + α·(A·B)
    Program v = base;
    std::string c = Add(v, OpKind::kMulScalar, {n.args[0]}, {}, n.beta);
    std::string prod = Add(v, ProductOf(n.op), {n.args[1], n.args[2]});
    std::string scaled = Add(v, OpKind::kMulScalar, {prod}, {}, n.alpha);
    v.outputs = {Add(v, OpKind::kAdd, {c, scaled})};
    out.push_back({"split_scaling", v});
  }
  if (n.op == OpKind::kBmm && shapes[0][0] > 0 && shapes[0][0] <= 8) {  // bmm = the stacked mms
    Program v = base;
    const Shape &a = shapes[0], &b = shapes[1];
    for (int64_t i = 0; i < a[0]; ++i) {
      std::string ai =
          Add(v, OpKind::kReshape, {Add(v, OpKind::kNarrow, {n.args[0]}, {0, i, 1})}, {a[1], a[2]});
      std::string bi =
          Add(v, OpKind::kReshape, {Add(v, OpKind::kNarrow, {n.args[1]}, {0, i, 1})}, {b[1], b[2]});
      v.outputs.push_back(Add(v, OpKind::kMm, {ai, bi}));
    }
    out.push_back({"stacked_mm", v});
  }
  return out;
}

MetamorphicCheck CheckMetamorphic(const std::string& relation, const PathResult& original,
                                  const PathResult& variant, const PathResult& ref_original,
                                  const PathResult& ref_variant) {
  MetamorphicCheck c;
  if (original.ok() != variant.ok()) {
    c.holds = false;
    c.detail = relation + ": the original " +
               (original.ok() ? "returns" : "raises " + original.error_class) +
               ", the rewritten program " +
               (variant.ok() ? "returns" : "raises " + variant.error_class);
    return c;
  }
  if (!original.ok()) return c;
  std::vector<double> x = Flat(original), y = Flat(variant), rx = Flat(ref_original),
                      ry = Flat(ref_variant);
  std::vector<double> bx = FlatBounds(ref_original), by = FlatBounds(ref_variant);
  std::vector<uint8_t> ax = FlatAlso(ref_original), ay = FlatAlso(ref_variant);
  if (x.size() != y.size()) {
    c.holds = false;
    c.detail =
        relation + ": " + std::to_string(x.size()) + " values against " + std::to_string(y.size());
    return c;
  }
  bool judged =
      ref_original.ok() && ref_variant.ok() && rx.size() == x.size() && ry.size() == y.size();
  if (!judged || original.outputs.empty()) return c;
  DType d = original.outputs[0].dtype;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    // Where the reference itself is not finite on both sides the rewrite is not an identity (IEEE:
    // beta = 0 ignores a NaN bias, 0 * NaN does not), so nothing is asked of the path there.
    // Nor where either side may overflow: the rewrite may move where that happens.
    if (!std::isfinite(rx[i]) || !std::isfinite(ry[i]) || ax[i] || ay[i]) continue;
    double allowed = AllowedError(d, rx[i], bx[i]) + AllowedError(d, ry[i], by[i]);
    if (std::isinf(allowed)) continue;
    bool bad = std::isnan(x[i]) != std::isnan(y[i]) ||
               (!std::isnan(x[i]) && !(std::fabs(x[i] - y[i]) <= allowed));
    if (!bad) continue;
    double excess =
        std::isfinite(x[i] - y[i]) ? std::fabs(x[i] - y[i]) / std::max(allowed, 1e-300) : INFINITY;
    if (c.holds || excess > worst) {
      worst = excess;
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "%s: element %zu is %.9g in the original and %.9g rewritten, allowed %.3g",
                    relation.c_str(), i, x[i], y[i], allowed);
      c.detail = buf;
    }
    c.holds = false;
  }
  return c;
}

}  // namespace mmdiff
