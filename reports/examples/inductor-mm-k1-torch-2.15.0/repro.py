#!/usr/bin/env python3
"""mmdiff reproducer: error_behaviour [blamed: inductor, filable]: eager raises RuntimeError (expected m1 and m2 to have the same dtype, but got: c10::Half != float); inductor return

- error_behaviour: eager raises RuntimeError (expected m1 and m2 to have the same dtype, but got: c10::Half != float); inductor returns float32[7, 15]@cpu; the contract says it must raise RuntimeError (same_dtype: mm: operands of dtype float16 and float32)
Contract: eager must raise RuntimeError (same_dtype: mm: operands of dtype float16 and float32). Source: aten/src/ATen/native/LinearAlgebra.cpp: addmm_impl_cpu_ 'expected m1 and m2 to have the same dtype', 'self and mat2 must have the same dtype'; bmm_out_or_baddbmm_ 'expected scalar type'; dot 'expected both vectors to have same dtype'; addmv 'input tensors must have the same dtype'; baddbmm 'Input dtypes must be the same'. Observed on torch 2.11.0 and 2.15.0 CPU.
Found with mmdiff 0.1.0 on torch 2.15.0+cu132, Python 3.11.2.
Program: mm(float16[7, 1], float32[1, 15])
Runs with plain `python` and a stock torch; exits non-zero while eager and torch.compile(backend='inductor') disagree.
"""
import math
import platform

import torch

print(f"torch {torch.__version__}, python {platform.python_version()}")


_M64 = (1 << 64) - 1
RECIPE = {'kind': "grid16", 'seed': 1, 'lo': -1.0, 'hi': 1.0, 'mean': 0.0, 'std': 1.0, 'special': 0.0}


def _mmdiff_splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


_MMDIFF_SUBNORMAL = {torch.float64: 2.0 ** -1074, torch.float32: 2.0 ** -149,
                     torch.bfloat16: 2.0 ** -133, torch.float16: 2.0 ** -24}


def _mmdiff_unit(x):
    return (x >> 11) * 2.0 ** -53


def _mmdiff_values(r, index, numel, dtype):
    """The input recipe (value class r['kind']); the twin of RecipeValues() in mmdiff."""
    base = _mmdiff_splitmix64(r['seed'] ^ ((index * 0xD1B54A32D192ED03) & _M64))
    if r['kind'] == 'grid16' and dtype.is_floating_point:  # k/16, k in [-32, 32]: exact in every float dtype
        return [float(((_mmdiff_splitmix64((base + j) & _M64) >> 11) % 65) - 32) / 16.0
                for j in range(numel)]
    out = []
    for j in range(numel):
        def draw(k):
            return _mmdiff_splitmix64((base + 16 * j + k) & _M64)
        if not dtype.is_floating_point:
            x = draw(3) >> 11
            if dtype == torch.bool:
                out.append(float(x % 2))
            elif dtype == torch.uint8:
                out.append(float(x % 17))
            else:
                out.append(float(x % 17 - 8))
            continue
        if r['special'] > 0 and _mmdiff_unit(draw(0)) < r['special']:
            pick, bits = (draw(1) >> 11) % 6, draw(2)
            sign = -1.0 if bits >> 63 else 1.0
            fi = torch.finfo(dtype)
            out.append([math.nan, math.inf, -math.inf, -0.0,
                        sign * _MMDIFF_SUBNORMAL[dtype] * (1 + 2 * (bits % 4)),
                        sign * fi.max * (0.5 if bits & 16 else 1.0)][pick])
            continue
        if r['kind'] == 'exact':  # small integers or powers of two
            x = draw(4) >> 11
            if x % 2 == 0:
                out.append(float((x >> 1) % 9 - 4))
            else:
                out.append((-1.0 if (x >> 1) % 2 else 1.0) * math.ldexp(1.0, (x >> 2) % 9 - 4))
        elif r['kind'] == 'uniform':
            out.append(r['lo'] + (r['hi'] - r['lo']) * _mmdiff_unit(draw(4)))
        else:  # normal (Irwin-Hall: no transcendental function, so bit-identical everywhere)
            s = 0.0
            for k in range(12):
                s += _mmdiff_unit(draw(4 + k))
            out.append(r['mean'] + r['std'] * (s - 6.0))
    return out


def _mmdiff_input(r, index, shape, dtype, device, transposed):
    numel = 1
    for d in shape:
        numel *= d
    t = torch.tensor(_mmdiff_values(r, index, numel, dtype), dtype=torch.float64).reshape(shape)
    if transposed:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    return t.to(dtype).to(device)


def make_inputs():
    return [
        _mmdiff_input(RECIPE, 0, (7, 1), torch.float16, "cpu", False),  # a
        _mmdiff_input(RECIPE, 1, (1, 15), torch.float32, "cpu", False),  # b
    ]


def f(a, b):
    v0 = torch.mm(a, b)
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
