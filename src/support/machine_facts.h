// The facts about this machine that a PyTorch bug report asks for and that decide which CPU kernels
// run: the OS, the CPU model and the instruction-set flags Inductor's C++ templates and ATen's
// kernels pick by (AVX2, AVX-512, AMX).
#pragma once

#include <string>
#include <vector>

namespace mmdiff {

struct MachineFacts {
  std::string os;         // /etc/os-release PRETTY_NAME, e.g. "Debian GNU/Linux 12 (bookworm)"
  std::string cpu_model;  // /proc/cpuinfo "model name", e.g. "AMD EPYC"
  std::vector<std::string> flags_present;  // of kCpuFlagsThatMatter, in that order
  std::vector<std::string> flags_absent;
};

// The flags listed: avx2, fma, f16c, avx512f, avx512bw, avx512vl, avx512_bf16, avx512_fp16,
// amx_tile, amx_bf16, amx_int8.
const std::vector<std::string>& CpuFlagsThatMatter();

// Reads /etc/os-release and /proc/cpuinfo (each "?" where unreadable).
MachineFacts ReadMachineFacts();

// "AMD EPYC; avx2, fma, f16c; without avx512f, ..., amx_int8": one line.
std::string CpuLine(const MachineFacts& m);

}  // namespace mmdiff
