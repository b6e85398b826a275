// Program verifier.
#include "src/ir/verifier.h"

#include <cmath>
#include <set>

#include "src/ir/static_types.h"

namespace mmdiff {

namespace {

bool IsIdentifier(const std::string& s) {
  static const std::set<std::string> kReserved = {"torch", "f", "sys", "math", "None", "True", "False",
                                                  "and", "or", "not", "in", "is", "if", "else", "for",
                                                  "def", "return", "lambda", "class", "import"};
  if (s.empty() || s.size() > 64 || kReserved.count(s) || s.rfind("_mmdiff", 0) == 0) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

Status Verify(const Program& p) {
  std::set<std::string> defined;
  if (p.nodes.size() > kMaxNodes)
    return Status::Error("program has " + std::to_string(p.nodes.size()) + " nodes; the limit is " +
                         std::to_string(kMaxNodes));
  for (const auto& in : p.inputs) {
    std::string where = "input \"" + in.name + "\"";
    if (!IsIdentifier(in.name)) return Status::Error(where + ": name is not a usable identifier");
    if (!defined.insert(in.name).second) return Status::Error(where + ": name defined twice");
    if (in.shape.size() > kMaxRank)
      return Status::Error(where + ": rank " + std::to_string(in.shape.size()) + " exceeds " +
                           std::to_string(kMaxRank));
    int64_t numel = 1;
    for (int64_t d : in.shape) {
      if (d < 0) return Status::Error(where + ": negative dimension in " + ShapeString(in.shape));
      if (d > kMaxNumel) return Status::Error(where + ": dimension too large in " + ShapeString(in.shape));
      numel *= d;
      if (numel > kMaxNumel)
        return Status::Error(where + ": more than " + std::to_string(kMaxNumel) + " elements");
    }
    if (in.layout == Layout::kTransposed && in.shape.size() < 2)
      return Status::Error(where + ": a transposed layout needs rank >= 2");
  }
  for (const auto& n : p.nodes) {
    std::string where = "node \"" + n.name + "\" (" + std::string(GetOpSpec(n.op).name) + ")";
    if (!IsIdentifier(n.name)) return Status::Error(where + ": name is not a usable identifier");
    if (defined.count(n.name)) return Status::Error(where + ": name defined twice");
    const OpSpec& spec = GetOpSpec(n.op);
    int nargs = static_cast<int>(n.args.size());
    if (nargs < spec.min_arity || nargs > spec.arity)
      return Status::Error(where + ": takes " +
                           (spec.min_arity == spec.arity ? std::to_string(spec.arity)
                                                         : std::to_string(spec.min_arity) + " or " + std::to_string(spec.arity)) +
                           " arguments, got " + std::to_string(n.args.size()));
    for (const auto& a : n.args)
      if (!defined.count(a))
        return Status::Error(where + ": argument \"" + a + "\" is not defined before this node");
    if (spec.has_dtype != n.dtype.has_value())
      return Status::Error(where + (spec.has_dtype ? ": needs a \"dtype\"" : ": takes no \"dtype\""));
    if (spec.has_alpha_beta && (!std::isfinite(n.alpha) || !std::isfinite(n.beta)))
      return Status::Error(where + ": alpha and beta must be finite");
    if (!spec.has_ints && !n.ints.empty()) return Status::Error(where + ": takes no \"ints\"");
    if (n.ints.size() > 8) return Status::Error(where + ": too many \"ints\"");
    for (int64_t v : n.ints)
      if (v < -kMaxNumel || v > kMaxNumel) return Status::Error(where + ": \"ints\" entry out of range");
    if (n.op == OpKind::kMulScalar && !std::isfinite(n.alpha)) return Status::Error(where + ": alpha must be finite");
    if (!spec.has_alpha_beta && ((n.alpha != 1.0 && n.op != OpKind::kMulScalar) || n.beta != 1.0))
      return Status::Error(where + ": takes no alpha/beta");
    defined.insert(n.name);
  }
  // Every result whose shape follows from the inputs must fit in a worker, like the inputs do.
  auto types = InferStaticTypes(p);
  for (const auto& n : p.nodes) {
    const std::optional<Shape>& shape = types.at(n.name).shape;
    if (shape && (shape->size() > kMaxRank || Numel(*shape) > kMaxNumel))
      return Status::Error("node \"" + n.name + "\" (" + std::string(GetOpSpec(n.op).name) + "): result " +
                           ShapeString(*shape) + " is larger than " + std::to_string(kMaxNumel) +
                           " elements or rank " + std::to_string(kMaxRank));
  }
  if (p.outputs.empty()) return Status::Error("program has no outputs");
  for (const auto& o : p.outputs)
    if (!defined.count(o)) return Status::Error("output \"" + o + "\" is not defined");
  return Status::Ok();
}

}  // namespace mmdiff
