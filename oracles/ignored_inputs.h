// Inputs the documented semantics say cannot matter, and the metamorphic check that they do not.
// torch.addmm, addmv, baddbmm and addbmm: "If beta is 0, then input will be ignored, and nan and
// inf in it will not be propagated" (docs.pytorch.org/docs/stable/generated/torch.addmm.html and
// its siblings). A case whose ignored input holds a NaN or an infinity is rerun with that input
// replaced by zeros; a path whose result changes (another outcome or type, a value that is not the
// same, NaN meeting NaN, +0 meeting -0, finite values within twice the reference's rounding bound
// of each other where it bounds the element) read what it must ignore. The judge against the
// reference sees such a fault only where the reference judges the element; this check also sees it
// where the reference leaves the element unjudged (an overflowing product, a special value in A or
// B).
#pragma once

#include <string>
#include <vector>

#include "oracles/verdict.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// The indices of the program inputs whose values reach no output except as the `input` (bias) of
// an addmm-family node with beta = 0: each use is such a bias, or an argument of a node whose own
// value is used only so; never a program output itself.
std::vector<int> IgnoredInputs(const Program& p);

// The first addmm-family node with beta = 0 whose bias is ignored (IgnoredInputs): the op whose
// documented promise a change breaks. nullptr when there is none.
const Node* IgnoringNode(const Program& p);

// The ignored inputs that hold a NaN or an infinity in the recipe's values and are not zeroed
// already: those the rerun replaces by zeros. Empty for a program without ignored inputs.
std::vector<int> IgnoredSpecialInputs(const Program& p, const InputRecipe& r);

// The recipe of the rerun: `r` with `inputs` zeroed too.
InputRecipe WithZeroed(InputRecipe r, const std::vector<int>& inputs);

// Compares each path that returned in `original` with its result in `rerun` (the same case with
// the `zeroed` inputs replaced by zeros). Where eager's result changed: one divergence blamed on
// eager, naming every path that changed. Else one per changed path, blamed on it ("filable" for a
// compiled path). The reference is not compared (it never reads an ignored input), nor outputs
// without values (meta); its bounds let two finite values differ by rounding (twice the allowed
// error), since the two runs may round differently (with beta = 0 the reference does not change).
std::vector<Divergence> CheckIgnoredInputs(const Program& p, const std::vector<int>& zeroed,
                                           const std::vector<PathResult>& original,
                                           const std::vector<PathResult>& rerun);

// Adds `found` (CheckIgnoredInputs) to `v`, the verdict of the inputs as given; `with_zeros` is the
// verdict of the rerun (judged against the same reference: with beta = 0 it does not change). One
// fault, one finding: a path's divergences in `v` that are gone with zeros (e.g. a NaN from the
// bias where the reference expects a number) are this fault and give way to it; a path that also
// diverges with zeros keeps its divergences and gets none of these. The most severe stay first.
void AddIgnoredInputDivergences(Verdict& v, const std::vector<Divergence>& found,
                                const Verdict& with_zeros);

}  // namespace mmdiff
