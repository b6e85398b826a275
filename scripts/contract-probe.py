#!/usr/bin/env python3
"""Probe what eager PyTorch does on every dtype combination of the matmul family, on one device.

    python3 scripts/contract-probe.py DEVICE [OUT.json]

Runs mm, bmm, mv, dot, matmul (every rank pair), linear and the addmm family (bias dtype varied
too) with small tensors of each dtype mmdiff generates, plus empty products, and records for each
call the result dtype or the exception's class. oracles/contract.cc's rules must agree with these
records: oracles/contract_probe_test.cc checks them against the files in oracles/probes/ (cuda's
came from a session lent a GPU, see docs/gpu.md; none exists here or in CI). Prints per op the
outcome classes with one message each; writes the records to OUT (format mmdiff.contract-probe:
per op its torch function, operand shapes and one character per dtype combination, the first
operand's dtype varying slowest: R RuntimeError, N NotImplementedError, X another exception,
a digit i: accepted with result dtype dtypes[i]).
"""
import itertools
import json
import sys

import torch

DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
          torch.int32, torch.int64, torch.bool]


def tensor(shape, dtype, device):
    return torch.ones(shape, dtype=dtype, device=device)


# name -> (torch function as mmdiff's IR names it, callable, operand shapes in the IR's order).
mm, bmm, matmul, linear = torch.mm, torch.bmm, torch.matmul, torch.nn.functional.linear
OPS = {
    "mm": ("mm", mm, [(3, 4), (4, 5)]),
    "mm_k0": ("mm", mm, [(3, 0), (0, 5)]),
    "bmm": ("bmm", bmm, [(2, 3, 4), (2, 4, 5)]),
    "bmm_k0": ("bmm", bmm, [(2, 3, 0), (2, 0, 5)]),
    "bmm_b0": ("bmm", bmm, [(0, 3, 4), (0, 4, 5)]),
    "mv": ("mv", torch.mv, [(3, 4), (4,)]),
    "dot": ("dot", torch.dot, [(4,), (4,)]),
    "matmul_1_1": ("matmul", matmul, [(4,), (4,)]),
    "matmul_2_1": ("matmul", matmul, [(3, 4), (4,)]),
    "matmul_1_2": ("matmul", matmul, [(4,), (4, 5)]),
    "matmul_2_2": ("matmul", matmul, [(3, 4), (4, 5)]),
    "matmul_3_3": ("matmul", matmul, [(2, 3, 4), (2, 4, 5)]),
    "matmul_3_2": ("matmul", matmul, [(2, 3, 4), (4, 5)]),
    "matmul_2_3": ("matmul", matmul, [(3, 4), (2, 4, 5)]),
    "matmul_3_1": ("matmul", matmul, [(2, 3, 4), (4,)]),
    "matmul_1_3": ("matmul", matmul, [(4,), (2, 4, 5)]),
    "linear": ("linear", linear, [(3, 4), (5, 4)]),
    "addmm": ("addmm", torch.addmm, [(3, 5), (3, 4), (4, 5)]),
    "addmv": ("addmv", torch.addmv, [(3,), (3, 4), (4,)]),
    "baddbmm": ("baddbmm", torch.baddbmm, [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "addbmm": ("addbmm", torch.addbmm, [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "linear_bias": ("linear", linear, [(3, 4), (5, 4), (5,)]),
    # Empty products: no result element, or an empty sum.
    "mm_m0": ("mm", mm, [(0, 4), (4, 5)]),
    "mm_n0": ("mm", mm, [(3, 4), (4, 0)]),
    "mv_m0": ("mv", torch.mv, [(0, 4), (4,)]),
    "mv_k0": ("mv", torch.mv, [(3, 0), (0,)]),
    "dot_0": ("dot", torch.dot, [(0,), (0,)]),
    "matmul_1_3_0": ("matmul", matmul, [(4,), (2, 4, 0)]),
    "matmul_3_2_m0": ("matmul", matmul, [(2, 0, 4), (4, 5)]),
    "linear_k0": ("linear", linear, [(3, 0), (5, 0)]),
    "addmm_m0": ("addmm", torch.addmm, [(0, 5), (0, 4), (4, 5)]),
    "addmm_k0": ("addmm", torch.addmm, [(3, 5), (3, 0), (0, 5)]),
    "addmv_m0": ("addmv", torch.addmv, [(0,), (0, 4), (4,)]),
    "addmv_k0": ("addmv", torch.addmv, [(3,), (3, 0), (0,)]),
    "baddbmm_k0": ("baddbmm", torch.baddbmm, [(2, 3, 5), (2, 3, 0), (2, 0, 5)]),
    "addbmm_b0": ("addbmm", torch.addbmm, [(3, 5), (0, 3, 4), (0, 4, 5)]),
    "matmul_3_3_k0": ("matmul", matmul, [(2, 3, 0), (2, 0, 5)]),
    # linear's bias off its 2-D (addmm) path: added in place after a matmul.
    "linear_1d_bias0": ("linear", linear, [(4,), (5, 4), ()]),
}


ADDMM_FAMILY = (torch.addmm, torch.addmv, torch.baddbmm, torch.addbmm)


def outcome(fn, shapes, dtypes, device):
    """(code, message): see the module's docstring for the codes."""
    try:
        args = [torch.ones(s, dtype=d, device=device) for s, d in zip(shapes, dtypes)]
        # mmdiff writes the addmm family's scalars as Python floats (beta=1.0, alpha=1.0).
        scalars = {"beta": 1.0, "alpha": 1.0} if fn in ADDMM_FAMILY else {}
        r = fn(*args, **scalars)
        if device == "cuda":
            torch.cuda.synchronize()
        return str(DTYPES.index(r.dtype)), ""
    except Exception as e:  # the class is the record; the message is shown once per class
        code = {RuntimeError: "R", NotImplementedError: "N"}.get(type(e), "X")
        text = str(e).strip()
        return code, type(e).__name__ + ": " + (text.splitlines()[0][:120] if text else "")


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("cpu", "cuda", "meta"):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    device = sys.argv[1]
    if device == "cuda" and not torch.cuda.is_available():
        print("contract-probe: no GPU here", file=sys.stderr)
        sys.exit(3)
    ops, summary = {}, []
    for name, (ir_op, fn, shapes) in OPS.items():
        codes, seen = [], {}
        for ds in itertools.product(DTYPES, repeat=len(shapes)):
            code, message = outcome(fn, shapes, ds, device)
            codes.append(code)
            if code in "RNX" and code not in seen:
                seen[code] = message
        ops[name] = {"op": ir_op, "shapes": [list(x) for x in shapes], "outcomes": "".join(codes)}
        accepted = sum(c.isdigit() for c in codes)
        summary.append(f"  {name:12} accepted {accepted:3}/{len(codes)}  " + "; ".join(seen.values()))
    if len(sys.argv) == 3:  # one op per line, so that two probes diff line by line
        with open(sys.argv[2], "w") as f:
            head = {"format": "mmdiff.contract-probe", "torch": torch.__version__, "device": device,
                    "dtypes": [str(d).replace("torch.", "") for d in DTYPES]}
            f.write(json.dumps(head)[:-1] + ', "ops": {\n')
            f.write(",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in ops.items()))
            f.write("\n}}\n")
    print("torch", torch.__version__, "device", device)
    print("\n".join(summary))


if __name__ == "__main__":
    main()
