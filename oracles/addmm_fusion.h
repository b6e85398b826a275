// Inductor's fusion of an mm and the add of its bias into addmm as a root cause. Its post_grad
// pass rewrites add(mm(a, b), bias) into addmm(bias, a, b) (the rewrite "post_grad.addmm"), whose
// kernel adds the bias to the product before rounding it to the result's dtype, where eager rounds
// the product to 16 bits first and then adds: in bfloat16 and float16 the fused sum can be out of
// the unfused chain's rounding bound and still closer to the exact one (seen on torch 2.15.0: a
// bfloat16 add(mm, bias), got 0.144531 for 0.140625, eager within the bound, precision-only).
#pragma once

#include "oracles/contract.h"
#include "oracles/root_cause.h"
#include "src/ir/program.h"

namespace mmdiff {

// The behaviour of such a finding: one by-design root cause per path whatever the dtypes and
// sizes, "value|path=<path>|by_design=addmm_fusion".
inline constexpr char kAddmmFusion[] = "by_design=addmm_fusion";

// True for a value finding of a compiled path whose compile ran post_grad.addmm
// (RootCauseFacts::addmm_fused), that PyTorch's accuracy rule, measured against the float64 run,
// calls precision-only, at an add one of whose operands is an mm's result (a 2-D matmul or a
// linear without bias reach mm too; views between allowed): the fused kernel's one rounding,
// by design.
bool UnroundedAddmmBias(const Program& p, const Expectation& contract, const RootCauseFacts& f);

}  // namespace mmdiff
