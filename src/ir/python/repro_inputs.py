# repro.py's input builder: the Python twin of the C++ input recipe (RecipeValues() in
# src/ir/input_recipe.cc), which must give the same values bit for bit on every value class
# (tests/generation_determinism_e2e_test.cc checks it). Runs in repro.py after its imports (math,
# torch) and RECIPE; make_inputs() follows it and calls _mmdiff_input once per input
# (EmitInputBuilder in python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
_M64 = (1 << 64) - 1


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
    if index in r['zeroed']:  # replaced by zeros: an input the semantics say cannot matter
        return [0.0] * numel
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


def _mmdiff_input(r, index, shape, dtype, device, transposed, requires_grad=False):
    numel = 1
    for d in shape:
        numel *= d
    t = torch.tensor(_mmdiff_values(r, index, numel, dtype), dtype=torch.float64).reshape(shape)
    if transposed:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    t = t.to(dtype).to(device)
    return t.requires_grad_() if requires_grad else t  # a leaf; raises on a non-floating dtype


def _mmdiff_weights_recipe(r):
    """The recipe the program's weights take their values from: r's 'weights', with r's zeroed."""
    return dict(r['weights'], zeroed=r['zeroed']) if 'weights' in r else r


def _mmdiff_cotangent(r, index, out):
    """The fixed cotangent w of a result `out`: recipe values as input number `index`."""
    values = _mmdiff_values(r, index, out.numel(), out.dtype)
    return torch.tensor(values, dtype=torch.float64).reshape(out.shape).to(out.dtype).to(out.device)
