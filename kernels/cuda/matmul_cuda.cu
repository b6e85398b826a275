// The reference matmul's accumulation on a CUDA GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cuda/cuda_reference.h"
#include "kernels/cuda/device_buffers.h"
#include "kernels/dot_math.h"

namespace mmref {

namespace {

// One thread per output element of a batched product a (batches, m, k) @ b (batches, k, n), both
// contiguous: the same DotAdd / DotAddPlain steps the CPU loops use.
__global__ void BatchedDots(const double* av, const double* ae, const double* bv, const double* be,
                            long long batches, long long m, long long k, long long n,
                            bool compensate, DotAcc* out) {
  long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= batches * m * n) return;
  long long bi = idx / (m * n), i = (idx / n) % m, j = idx % n;
  DotAcc d;
  for (long long kk = 0; kk < k; ++kk) {
    long long ia = (bi * m + i) * k + kk, ib = (bi * k + kk) * n + j;
    if (compensate)
      DotAdd(d, av[ia], ae[ia], bv[ib], be[ib]);
    else
      DotAddPlain(d, av[ia], ae[ia], bv[ib], be[ib]);
  }
  out[idx] = d;
}

}  // namespace

bool MatmulOnCuda(const RefTensor& a, const RefTensor& b, Arith arith, RefTensor& out,
                  std::string* why, bool final_product) {
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    if (why) *why = "1-D operands are left to the CPU";
    return false;
  }
  if (IsInteger(arith.out)) {
    if (why) *why = "integer products are left to the CPU";
    return false;
  }
  if (HasSpecial(a) || HasSpecial(b)) {
    if (why)
      *why = "special values and unbounded errors are followed element by element on the CPU";
    return false;
  }
  if (!CudaDeviceAvailable(why)) return false;
  // Broadcast the batch dims on the host, as Matmul does, into contiguous operands.
  std::vector<long long> ab(a.shape.begin(), a.shape.end() - 2),
      bb(b.shape.begin(), b.shape.end() - 2);
  size_t nb = std::max(ab.size(), bb.size());
  std::vector<int64_t> batch(nb, 1);
  for (size_t i = 0; i < nb; ++i) {
    int64_t da = i < nb - ab.size() ? 1 : ab[i - (nb - ab.size())];
    int64_t db = i < nb - bb.size() ? 1 : bb[i - (nb - bb.size())];
    batch[i] = (da == 0 || db == 0) ? 0 : std::max(da, db);
  }
  int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
  std::vector<int64_t> as = batch, bs = batch;
  as.insert(as.end(), {m, k});
  bs.insert(bs.end(), {k, n});
  RefTensor ea = Expand(a, as), eb = Expand(b, bs);
  long long batches = 1;
  for (int64_t d : batch) batches *= d;
  size_t total = static_cast<size_t>(batches * m * n);
  out.shape = batch;
  out.shape.insert(out.shape.end(), {m, n});
  out.val.assign(total, 0.0);
  out.err.assign(total, 0.0);
  if (total == 0) return true;
  DeviceBuffers buf;
  double *av, *ae, *bv, *be;
  cudaError_t e;
  if ((e = buf.Copy(ea.val, &av)) != cudaSuccess || (e = buf.Copy(ea.err, &ae)) != cudaSuccess ||
      (e = buf.Copy(eb.val, &bv)) != cudaSuccess || (e = buf.Copy(eb.err, &be)) != cudaSuccess)
    return Fail(why, "copying operands to the GPU", e);
  DotAcc* dev_out;
  if ((e = buf.Alloc(total, &dev_out)) != cudaSuccess) return Fail(why, "allocating results", e);
  int threads = 256;
  long long blocks = (static_cast<long long>(total) + threads - 1) / threads;
  BatchedDots<<<static_cast<unsigned>(blocks), threads>>>(av, ae, bv, be, batches, m, k, n,
                                                          arith.acc == Format::kF64, dev_out);
  if ((e = cudaGetLastError()) != cudaSuccess) return Fail(why, "launching the kernel", e);
  std::vector<DotAcc> sums(total);
  if ((e = cudaMemcpy(sums.data(), dev_out, total * sizeof(DotAcc), cudaMemcpyDeviceToHost)) !=
      cudaSuccess)
    return Fail(why, "copying results back", e);
  // Finish on the host exactly as Matmul does (no special values here: declined above): bounds,
  // overflow outcomes and exact sums (for a final product).
  for (long long bi = 0; bi < batches; ++bi) {
    bool exact =
        final_product && NoErrors(ea, bi * m * k, m * k) && NoErrors(eb, bi * k * n, k * n);
    double quantum = exact ? Quantum(ea, bi * m * k, m * k) * Quantum(eb, bi * k * n, k * n) : 0;
    for (long long o = bi * m * n; o < (bi + 1) * m * n; ++o) {
      uint8_t also = 0;
      FinishDot(sums[o], SumOutcomes{}, static_cast<long>(k), arith, out.val[o], out.err[o], also);
      ApplyExactness(quantum, sums[o], arith, out.val[o], out.err[o], also);
      out.SetAlso(static_cast<size_t>(o), also);
    }
  }
  return true;
}

}  // namespace mmref
