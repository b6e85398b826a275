// The reference softmax on a CUDA GPU: one thread per row, the shared row math.
#include <cuda_runtime.h>

#include "kernels/attention_ops.h"
#include "kernels/cuda/cuda_reference.h"
#include "kernels/cuda/device_buffers.h"
#include "kernels/softmax_math.h"

namespace mmref {

namespace {

__global__ void SoftmaxRowsKernel(const double* val, const double* err, double* rval, double* rerr,
                                  long long outer, long long inner, long long n,
                                  SoftmaxRounding r) {
  long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= outer * inner) return;
  long long o = row / inner, in = row % inner;
  SoftmaxRowMath(val, err, rval, rerr, o * n * inner + in, inner, n, r);
}

}  // namespace

bool SoftmaxOnCuda(const RefTensor& in, int64_t dim, Arith arith, RefTensor& out,
                   std::string* why) {
  if (!CudaDeviceAvailable(why)) return false;
  const RefTensor a =
      WithoutAlso(in);  // as Softmax: an element that may also be special is unjudged
  SoftmaxRows rows = SoftmaxRowsOf(a, dim);
  out = a;
  long long count = rows.outer * rows.inner;
  if (a.val.empty() || count == 0) return true;
  DeviceBuffers buf;
  double *v, *e, *rv, *re;
  cudaError_t st;
  if ((st = buf.Copy(a.val, &v)) != cudaSuccess || (st = buf.Copy(a.err, &e)) != cudaSuccess)
    return Fail(why, "copying the input to the GPU", st);
  if ((st = buf.Alloc(a.val.size(), &rv)) != cudaSuccess ||
      (st = buf.Alloc(a.val.size(), &re)) != cudaSuccess)
    return Fail(why, "allocating results", st);
  int threads = 128;
  long long blocks = (count + threads - 1) / threads;
  SoftmaxRowsKernel<<<static_cast<unsigned>(blocks), threads>>>(
      v, e, rv, re, rows.outer, rows.inner, rows.n, SoftmaxRoundingFor(arith));
  if ((st = cudaGetLastError()) != cudaSuccess) return Fail(why, "launching the kernel", st);
  if ((st = cudaMemcpy(out.val.data(), rv, a.val.size() * sizeof(double),
                       cudaMemcpyDeviceToHost)) != cudaSuccess ||
      (st = cudaMemcpy(out.err.data(), re, a.err.size() * sizeof(double),
                       cudaMemcpyDeviceToHost)) != cudaSuccess)
    return Fail(why, "copying results back", st);
  return true;
}

}  // namespace mmref
