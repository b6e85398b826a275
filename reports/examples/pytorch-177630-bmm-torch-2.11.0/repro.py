#!/usr/bin/env python3
"""mmdiff reproducer: error_behaviour [blamed: inductor]: eager raises RuntimeError (expected scalar type Float but found Half); inductor returns float32[1, 1, 1]@cpu; the contract s

- error_behaviour: eager raises RuntimeError (expected scalar type Float but found Half); inductor returns float32[1, 1, 1]@cpu; the contract says it must raise RuntimeError (same_dtype: bmm: operands of dtype float32 and float16)
Contract: eager must raise RuntimeError (same_dtype: bmm: operands of dtype float32 and float16). Source: aten/src/ATen/native/LinearAlgebra.cpp: addmm_impl_cpu_ 'expected m1 and m2 to have the same dtype', 'self and mat2 must have the same dtype'; bmm_out_or_baddbmm_ 'expected scalar type'; dot 'expected both vectors to have same dtype'; addmv 'input tensors must have the same dtype'. Observed on torch 2.11.0 and 2.15.0 CPU.
Found with mmdiff 0.1.0 on torch 2.11.0+cu130, Python 3.11.2.
Program: bmm(float32[1, 1, 33], float16[1, 33, 1])
Runs with plain `python` and a stock torch; exits non-zero while eager and torch.compile(backend='inductor') disagree.
"""
import platform

import torch

print(f"torch {torch.__version__}, python {platform.python_version()}")


_M64 = (1 << 64) - 1


def _mmdiff_splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _mmdiff_values(seed, index, numel):
    """Input recipe 'grid16': k/16 with k in [-32, 32], exact in every float dtype."""
    base = _mmdiff_splitmix64(seed ^ ((index * 0xD1B54A32D192ED03) & _M64))
    return [float(((_mmdiff_splitmix64((base + j) & _M64) >> 11) % 65) - 32) / 16.0
            for j in range(numel)]


def _mmdiff_input(seed, index, shape, dtype, device, transposed):
    numel = 1
    for d in shape:
        numel *= d
    t = torch.tensor(_mmdiff_values(seed, index, numel), dtype=torch.float64).reshape(shape)
    if transposed:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    return t.to(dtype).to(device)


def make_inputs():
    return [
        _mmdiff_input(54, 0, (1, 1, 33), torch.float32, "cpu", False),  # x0
        _mmdiff_input(54, 1, (1, 33, 1), torch.float16, "cpu", False),  # x1
    ]


def f(x0, x1):
    v0 = torch.bmm(x0, x1)
    return (v0,)


def outcome(fn):
    """('ok', [(dtype, shape, device), ...], tensors) or ('error', root-cause class, message)."""
    try:
        outs = fn(*make_inputs())
    except Exception as e:  # compare the root cause: torch.compile wraps exceptions
        root = e
        while (root.__cause__ or root.__context__) is not None:
            root = root.__cause__ or root.__context__
        cls = next(c for c in type(root).__mro__ if c.__module__ == "builtins")
        return ("error", cls.__name__, (str(root).strip().splitlines() or [""])[0])
    return ("ok", [(str(t.dtype), tuple(t.shape), str(t.device)) for t in outs], outs)


eager = outcome(f)
torch._dynamo.reset()
compiled = outcome(torch.compile(f, backend="inductor", fullgraph=True))
print("eager:   ", eager[:3] if eager[0] == "error" else eager[:2])
print("compiled:", compiled[:3] if compiled[0] == "error" else compiled[:2])
assert eager[:2] == compiled[:2], "eager and torch.compile disagree (see above)"
print("eager and compiled agree")
