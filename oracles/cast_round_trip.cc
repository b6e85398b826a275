// Explicit cast round trips as a root cause.
#include "oracles/cast_round_trip.h"

#include "src/ir/dtype.h"
#include "src/ir/op.h"

namespace mmdiff {

namespace {

// The cast behind `value`, views skipped; nullptr where a compute op or an input comes first.
const Node* CastBehind(const Program& p, const std::string& value) {
  const Node* n = p.FindNode(value);
  for (int guard = 0; n && guard < 10000 && IsView(n->op) && !n->args.empty(); ++guard)
    n = p.FindNode(n->args[0]);
  return n && n->op == OpKind::kCast && !n->args.empty() ? n : nullptr;
}

}  // namespace

CastRoundTrip FirstCastRoundTrip(const Program& p, const Expectation& contract) {
  for (const Node& back : p.nodes) {
    if (back.op != OpKind::kCast || back.args.empty()) continue;
    const Node* narrow = CastBehind(p, back.args[0]);
    if (!narrow) continue;
    const ValueType* from = TypeOf(contract, narrow->args[0]);
    const ValueType* via = TypeOf(contract, narrow->name);
    const ValueType* to = TypeOf(contract, back.name);
    if (!from || !via || !to || !IsFloating(from->dtype) || !IsFloating(via->dtype) ||
        !IsFloating(to->dtype))
      continue;
    if (UnitRoundoff(via->dtype) > UnitRoundoff(from->dtype) &&
        UnitRoundoff(to->dtype) < UnitRoundoff(via->dtype))
      return {narrow, &back, from->dtype, via->dtype, to->dtype};
  }
  return {};
}

CastRoundTrip RoundTripFinding(const Program& p, const Expectation& contract,
                               const RootCauseFacts& f) {
  if (f.kind != DivergenceKind::kValue || !f.compiled || !f.precision_only ||
      (f.behaviour != "values" && f.behaviour != "grad_values"))
    return {};
  return FirstCastRoundTrip(p, contract);
}

std::string RoundTripText(const CastRoundTrip& t) {
  return std::string(DTypeName(t.from)) + " -> " + std::string(DTypeName(t.via)) + " -> " +
         std::string(DTypeName(t.to));
}

}  // namespace mmdiff
