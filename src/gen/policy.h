// GenPolicy: every probability and weight the generator uses, in one struct, dumpable as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "src/support/status.h"

namespace mmdiff {

struct GenPolicy {
  int max_ops = 3;                  // ops per program: uniform in [1, max_ops]
  double p_chain = 0.5;             // an op takes the previous op's result as its first operand
  double p_mixed_dtype = 0.35;      // an operand gets a dtype other than the op's base dtype
  double p_cast = 0.2;              // an operand goes through an explicit cast node first
  double p_shape_violation = 0.04;  // contracted dimensions deliberately disagree
  double p_transposed = 0.2;        // an input of rank >= 2 is stored transposed
  double p_view = 0.2;         // an operand is made through a view of an input of another shape:
                               // transpose, permute, reshape, expand (stride 0) or narrow (slice)
  double p_contiguous = 0.25;  // ... followed by .contiguous()
  double p_glue = 0.15;        // an op's result goes through elementwise glue before it is
                               // chained: a scaling (x * s) or an added bias/residual tensor
  int max_matmul_rank = 4;     // matmul operand ranks: uniform in [1, max_matmul_rank]
  double p_linear_bias = 0.5;  // linear gets a bias argument
  // Devices: a whole program goes to meta or cuda with these probabilities (else cpu); a fresh
  // operand lands on another device than its program's with p_device_mismatch (a contract
  // violation). cuda programs are generated on any machine and skipped, with a count, where there
  // is no GPU.
  double p_meta = 0.1;
  double p_cuda = 0.05;
  double p_device_mismatch = 0.03;
  double p_move = 0.05;  // a fresh operand is made on another device and moved with .to(device):
                         // cpu to a meta or cuda program; cuda (if p_cuda > 0) to a cpu program
  // Layouts: a drawn dim is 0 with p_zero_dim; a contracted dim K is large (128 to 4097) with
  // p_large_k.
  double p_zero_dim = 0.02;
  double p_large_k = 0.04;
  // Attention: sdpa gets a mask (bool or additive) with p_mask, else is_causal with p_causal; 4-D
  // attention groups query heads (enable_gqa) with p_gqa; hand-written attention takes its softmax
  // in float32 (dtype=torch.float32) with p_softmax_float32, and casts back to the query's dtype
  // with p_cast_back. An sdpa float mask is float32 (accepted with any query dtype) rather than the
  // query's dtype with p_mask_float32.
  double p_mask = 0.5, p_causal = 0.3, p_gqa = 0.3, p_softmax_float32 = 0.6, p_cast_back = 0.7;
  double p_mask_float32 = 0.3;
  // Input values: the value class of a program's inputs (see InputRecipe) by weight; with p_special
  // its floating inputs carry special values (NaN, ±inf, -0, subnormals, near-max) at special_rate.
  double w_grid16 = 1, w_exact = 1, w_uniform = 1, w_normal = 1;
  double p_special = 0.2, special_rate = 0.02;
  // Swarm mode: per program, each op, each dtype, each value class and each of the features cast,
  // mixed dtype, transposed layout, chaining, views, device moves and special values is switched
  // off with probability 1/2 (at least one op and one dtype stay on), so that rare combinations get
  // room. Off by default.
  bool swarm = false;
  // Relative weights of the ops (their JSON keys and their order come from the op table, GenOps()
  // in generator.h) and the float dtypes.
  double w_mm = 1, w_bmm = 1, w_matmul = 2, w_addmm = 1;
  double w_mv = 0.5, w_dot = 0.5, w_addmv = 0.5, w_baddbmm = 0.7, w_addbmm = 0.5, w_linear = 1;
  double w_sdpa = 0.7, w_attention = 0.7;  // scaled_dot_product_attention; hand-written attention
  double w_float64 = 1, w_float32 = 2, w_float16 = 2, w_bfloat16 = 1;
  // Integer dtypes; bool as an operand dtype is a deliberate contract violation (masks are bool
  // anyway).
  double w_int8 = 0.15, w_uint8 = 0.1, w_int32 = 0.15, w_int64 = 0.15, w_bool = 0.03;
  // Sizes drawn for every dimension: small, awkward and power-of-two values.
  std::vector<int64_t> dims = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 65};
  // Compile once, run many: each program is checked on this many inputs in a row (see
  // input_variants.h), so that compiled paths reuse what they compiled for the first. An input
  // through a compiled function costs about 1 ms against about 0.5 s for its compile, so 128 inputs
  // add about a quarter to a computing program's time (scripts/bench measures the gain).
  int inputs_per_program = 128;
  // AOTInductor compiles a shared library per program (slow): the share of programs that also run
  // the aoti path when a campaign asks for it.
  double aoti_rate = 0.05;
  bool operator==(const GenPolicy&) const = default;
};

nlohmann::json PolicyToJson(const GenPolicy& p);
// Missing keys keep their defaults; unknown keys, wrong types and out-of-range values are errors.
Result<GenPolicy> PolicyFromJson(const nlohmann::json& j);

}  // namespace mmdiff
