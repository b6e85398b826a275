// Speed of the reference engine: Matmul on float32 inputs of a given size, best of several runs.
// Prints one JSON object; scripts/bench-reference compares it with ATen's float64 mm.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "kernels/reference_ops.h"

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 512;
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  std::mt19937_64 g(1);
  std::normal_distribution<double> d;
  std::vector<double> av(static_cast<size_t>(n * n)), bv(av.size());
  for (double& x : av) x = mmref::RoundTo(mmref::Format::kF32, d(g));
  for (double& x : bv) x = mmref::RoundTo(mmref::Format::kF32, d(g));
  mmref::RefTensor a = mmref::MakeExact({n, n}, av), b = mmref::MakeExact({n, n}, bv);
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    mmref::RefTensor c =
        mmref::Matmul(a, b, mmref::Arith{mmref::Format::kF32, mmref::Format::kF32});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (c.val.empty()) return 1;
    best = std::min(best, s);
  }
  std::printf(
      "{\"n\": %lld, \"dtype\": \"float32\", \"threads\": %u, \"reference_matmul_s\": %.6f}\n",
      static_cast<long long>(n), std::thread::hardware_concurrency(), best);
  return 0;
}
