// Composite ops' stages on the GPU, with the CPU loops where the GPU declines.
#include "kernels/attention_ops.h"
#include "kernels/cuda/cuda_reference.h"

namespace mmref {

namespace {

RefTensor ProductStage(const RefTensor& a, const RefTensor& b, Arith arith) {
  RefTensor out;
  if (MatmulOnCuda(a, b, arith, out, nullptr, /*final_product=*/false)) return out;
  return Matmul(a, b, arith);
}

RefTensor SoftmaxStage(const RefTensor& a, int64_t dim, Arith arith) {
  RefTensor out;
  if (SoftmaxOnCuda(a, dim, arith, out, nullptr)) return out;
  return Softmax(a, dim, arith);
}

}  // namespace

Stages CudaStages() { return Stages{ProductStage, SoftmaxStage}; }

}  // namespace mmref
