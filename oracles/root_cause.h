// Root causes: the unit of a finding. One divergence is one finding, signed by what identifies the
// behaviour (kind, the path at fault, the contract rule and op family where the program breaks, or
// the op whose output diverges, the devices) and never by its incidental details (operand dtypes,
// sizes, layouts, error messages): two cases of one behaviour share a bucket whatever their dtypes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "oracles/attention_fusion.h"
#include "oracles/contract.h"
#include "oracles/signature_text.h"
#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// What the signature of one divergence is made of, as read from a judged case (FindingFacts) or
// from what a regression entry expects (ExpectedFacts).
struct RootCauseFacts {
  DivergenceKind kind = DivergenceKind::kValue;
  // The path at fault: the blamed path, lowered to the first stage of torch.compile's ladder
  // (compile_eager < aot_eager < inductor) that diverges the same way in the same case; "?(p)" for
  // an unblamed divergence involving p; "eager" for a contract finding.
  std::string path;
  // How the path at fault behaves, by class only: "accepts" (returns where the other raises),
  // "raises:<Class>", "dtype", "shape", "device", "values", for meta "outcome" / "error_class" /
  // "dtype" / "shape", for crash and timeout the stage.
  std::string behaviour;
  int output = 0;  // the program output whose producing op names an accepted program's finding
  // The node eager raised at, where its result says (reports from before that field: ""). Eager can
  // raise at another node than the contract's first violation: it accepts an op mixing cpu and meta
  // operands (the meta kernel has no device check), then fails at a later, perhaps unused, one.
  std::string eager_node;
  // The path at fault compiles the program (its PathTraits::compiled): a compiler's tracing layer
  // raising another error class is one root cause whatever the op (RootCauseSignature).
  bool compiled = false;
  // A value finding whose worst element is NaN where the reference allows no NaN (a regression
  // entry says so with "nan": true).
  bool nan = false;
  // The attention fusions (Inductor's fuse_attention replacements, by pattern: "_sfdp_pattern_5",
  // several joined by ',') that the path at fault's compile ran, for a result finding (values,
  // dtype, shape) or an error on a program eager runs (raises, raises in backward) of a compiled
  // path: a fused attention runs another kernel than the ops it replaced, a root cause of its own
  // beside the rounding of those ops (seen on torch 2.11.0: pytorch#174049, the fusion dropping
  // the scale, joined a float16 bmm rounding bucket).
  std::string fused;
  // The path at fault's compile fused an add of an mm's result into addmm (Inductor's
  // post_grad.addmm rewrite), for a value finding of a compiled path.
  bool addmm_fused = false;
  // A value finding of a compiled path that PyTorch's accuracy rule, measured against the float64
  // run, calls precision-only: at least as close to the exact result as eager's.
  bool precision_only = false;
  // A compiled path's error on a program eager runs whose message names a compiler defect that
  // shows whatever the ops (CompilerErrorMark, e.g. "graph_order"): one root cause per path.
  std::string error_mark;
};

// The mark of a compiled path's error message that names a compiler defect of its own, whatever
// the ops it shows in, or "": "graph_order" for an FX graph that uses a node before defining it
// ("... was used before it has been defined! Please check that Nodes in the graph are
// topologically ordered"; seen on 2.11.0 to 2.15.0: Inductor on meta inputs, in a training mm +
// add and in a linear + silu whose product is an output too, two lines by their ops).
std::string CompilerErrorMark(const std::string& message);
// True for a mark CompilerErrorMark can give (a regression entry's "error_mark" must be one).
bool KnownCompilerErrorMark(const std::string& mark);

// Eager's bfloat16 products returning NaN where the result is finite or an infinity (seen on torch
// 2.15.0 on CPUs with AMX, in mm, bmm and addmm and their backward: oneDNN's AMX kernels): a value
// finding blamed on eager whose worst element is NaN, at one product of the matmul family (mm,
// bmm, matmul reaching them, linear, addmm, baddbmm, addbmm with alpha != 0: alpha = 0 is another
// defect, catalogued apart) with bfloat16 operands. One root cause whatever the op, forward or
// gradient: "value|path=eager|bfloat16_products_nan|devices=<its operands' devices>".
bool EagerBfloat16ProductNan(const Program& p, const Expectation& contract,
                             const RootCauseFacts& f);

// A compiled path raising in the backward of a training program in which a type-promoting binary
// op (add, mul, div) has a gradient-tracked operand of another dtype than its result: the path's
// autodiff hands that operand a gradient in the promoted dtype, and the op before it raises on
// mixed dtypes (seen on 2.11.0 to 2.15.0: TorchScript's add after a bfloat16 or float16 linear,
// mm, bmm or matmul, "expected m1 and m2 to have the same dtype" or "expected scalar type Float
// but found Half" by the op). One root cause per path whatever the ops before and after:
// "backward_error|path=<path>|backward_raises|promoted_gradient|devices=<the program's devices>".
// The first such op, or nullptr where the finding is not this.
const Node* PromotedGradientInBackward(const Program& p, const Expectation& contract,
                                       const RootCauseFacts& f);

// Where a finding is in its program (oracles/finding_nodes.cc), from here to FindingNodes.

// True when eager raised at a known node other than the contract's violation: it accepted the
// violating op and failed later (seen on 2.15.0: an empty mixed-dtype matmul accepted, then an
// IndexError from a later transpose). Its contract finding is that it accepts the violation.
bool EagerPassedTheViolation(const Expectation& contract, const PathResult& eager);

// True for a finding against eager (error behaviour or error class) where eager raised at a known
// node other than the contract's violation (or on a program the contract accepts): then eager's
// node, not the contract's, is the op the finding is about.
bool EagerRaisedElsewhere(const Expectation& contract, const RootCauseFacts& f);

// True when node's value reaches no program output, directly or through later nodes.
bool UnusedNode(const Program& p, const std::string& node);
// A finding where a path other than eager accepts, or raises another class than eager, because the
// node eager rejects (the one it raised at, where known, else the contract's violation) is unused:
// dead-code elimination skipped its error.
// Signed as one root cause per path ("error_behaviour|path=<path>|unused_op"), whatever the op, the
// kind (accepts, raises another class) and the blame.
bool SkipsUnusedOp(const Program& p, const Expectation& contract, const RootCauseFacts& f);

// " under autocast(cpu, bfloat16)" where autocast changes what node `node` runs (it is in an
// enabled region of its device type and on that device's autocast lists), else "".
std::string AutocastNote(const Program& p, const Expectation& contract, const std::string& node);
// How a headline names a node's op: its op name, and for matmul the ATen function its operand
// ranks dispatch to (matmul[dot], matmul[mv], matmul[vm], matmul[mm], matmul[bmm]). "?" when the
// node is unknown.
std::string OpCallName(const Program& p, const Expectation& contract, const std::string& node);
// The op family a signature names: the op, and for matmul the function reached (dot, mv, mm, bmm):
// matmul's mv path and mv are one code path in eager and in the compilers.
std::string OpFamily(const Program& p, const Expectation& contract, const std::string& node);
// True when the program breaks a dtype rule (not same_device) at a node with an operand on meta:
// eager then runs torch's meta registrations.
bool EagerOnMeta(const Program& p, const Expectation& contract);

// The compute nodes a finding is located at: the violating node of a program the contract rejects;
// the node behind the diverging output (casts, views and device moves skipped) of a finding about a
// result (accepts, returns, values, result_type); every compute node of an accepted program for an
// error, crash or timeout (which node failed is not known: reduction narrows it).
std::vector<const Node*> FindingNodes(const Program& p, const Expectation& contract,
                                      const RootCauseFacts& f);

// The root-cause signature, e.g.
//   "error_behaviour|path=inductor|accepts|rule=same_dtype|op=addmm|devices=cpu,cpu,cpu"
//   "value|path=inductor|values|op=mv|devices=cpu,cpu"
//   "value|path=inductor|values|fused=_sfdp_pattern_5|op=matmul|devices=cpu,cpu" (the path at
//   fault ran attention fusions: RootCauseFacts::fused; a result type or an error after them is
//   one root cause whatever the pattern:
//   "dtype|path=inductor|returns|fused|op=bmm|devices=cpu,cpu",
//   "error_behaviour|path=inductor|raises:RuntimeError|fused|devices=cpu")
//   "meta|path=eager_meta|skips_check|rule=same_dtype" (eager on meta accepting what cpu rejects,
//   or raising another class later: one root cause per rule whatever the op, for the eager_meta
//   path and for eager on a meta program)
//   "error_behaviour|path=compile_eager|raises:RuntimeError|ops=dot,bmm|devices=cpu" (an error on a
//   program the contract accepts: its compute ops)
//   "contract|path=eager|accepts|rule=same_dtype|deviation=empty_bmm_dtype|devices=cpu" (eager
//   accepting where the contract names its deviation from the rule: one root cause whatever the op)
//   "backward_error|path=eager|backward_raises|op=addmv|devices=cpu,cpu,cpu" (eager raising in a
//   backward the reference differentiates)
// Located at FindingNodes: the rule and op family of a rejected program's violating node, else the
// op family and operand devices of the one node, or the ops and input devices of the program.
std::string RootCauseSignature(const Program& p, const Expectation& contract,
                               const RootCauseFacts& facts);

// The facts of divergence `i` of a judged case (whether the path at fault compiles: its result's
// traits).
RootCauseFacts FindingFacts(const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v, size_t i);

// True where a compiled path's finding is signed with the attention fusions its compile ran
// (RootCauseFacts::fused): a result (values, dtype, shape), or raising ("raises:<Class>") or
// raising in backward on a program the contract accepts.
bool SignsAttentionFusions(const Expectation& contract, DivergenceKind kind,
                           const std::string& behaviour);

// The facts a regression entry's expected divergence (kind, blamed, and the blamed path's traits)
// implies, for a program whose eager behaviour follows the contract: what the current code would
// sign a case of it with.
RootCauseFacts ExpectedFacts(const Expectation& contract, DivergenceKind kind,
                             const std::string& blamed, const PathTraits& blamed_traits);

struct FindingKey {
  size_t divergence =
      0;  // the verdict's divergence this finding is about (its headline, its repro)
  std::string signature;  // RootCauseSignature
  // The other paths whose divergences in this case are the same root cause, folded into this
  // finding (e.g. aot_eager and inductor behind compile_eager; inductor disagreeing with an eager
  // that breaks the contract).
  std::vector<std::string> also;
};

// The findings of a judged case, most severe first (the verdict's order); none when it agrees.
// Divergences with one signature are one finding; a divergence that only restates another's cause
// is folded into it: a value divergence nobody is blamed for when eager's own values are out of
// bound; a disagreement blamed on eager where eager breaks the contract (the paths that follow the
// contract are not named); where eager breaks a rule the contract documents it breaking, another
// path that breaks it too with another result type (named); where eager raises in a backward the
// reference differentiates, a compiled path raising the same class in its forward call (named).
std::vector<FindingKey> Findings(const Program& p, const Expectation& contract,
                                 const std::vector<PathResult>& results, const Verdict& v);

}  // namespace mmdiff
