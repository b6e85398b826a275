# Inductor's graph rewrites, named, observed and listed: the one naming rule that the worker's
# pass coverage (src/backends/python/worker_helpers.py records what fired while a program
# compiled) and `mmdiff rewrites` (which lists every matmul/attention-family rewrite of a torch
# install) share, so that the two name a rewrite alike.
#
# A rewrite is a pattern-matcher entry of torch._inductor.pattern_matcher (ReplacementPatternEntry,
# GraphPatternEntry, LoweringPatternEntry) or one of Inductor's decompositions of mm, bmm and
# addmm, which turn small products into pointwise ops. Names, the same in torch 2.11 and 2.15:
#   - a replacement registered under a name (fuse_attention's _sfdp_pattern_N_inference, ...,
#     pad_mm's): that name. 2.11 keeps no name on the entry, but its pattern is the object of that
#     name in torch._inductor.fx_passes.serialized_patterns, where the name is found again.
#   - another replacement: its search function (found in its check's closure), a graph or lowering
#     entry: its handler, as module.function without "torch._inductor.fx_passes." (for example
#     "joint_graph.pointless_convert", "post_grad.addmm").
#   - a decomposition: "decompose.mm", "decompose.bmm", "decompose.addmm".
# Observing never changes what Inductor does: entry.apply and the decompositions are wrapped at
# class (table) level by functions that call the original with the same arguments and return its
# result. A graph entry whose handler leaves the graph as it was (bmm_to_mm on a CPU, a view that
# is not pointless) is not counted: it did not rewrite anything. A compile that Inductor's caches
# answer runs no pass and reports none.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file.

# ---- embedded from here on (cmake/embed_python.cmake) ----
_mmdiff_rewrites_fired = []  # names, in the order they fired, since the caller last cleared it
_mmdiff_rewrite_serialized = None  # id(pattern) -> its name in serialized_patterns (2.11)
_mmdiff_rewrite_installed = []
# What makes a rewrite part of the matmul/attention family: an op of these anywhere in its pattern
# (amax: a softmax, as the joint graph spells it), or one of the joint graph's cast and view
# eliminations, which remove the casts and views around products.
_MMDIFF_REWRITE_FAMILY = ("mm", "bmm", "addmm", "baddbmm", "matmul", "linear", "_softmax", "softmax",
                          "_safe_softmax", "scaled_dot_product_attention", "mv", "addmv", "dot",
                          "_int_mm", "_scaled_mm", "amax",
                          # freezing's prepacked linears (mkldnn_fusion.py): their epilogue fusions
                          "_linear_pointwise", "_mkl_linear")
# Family rewrites no program of mmdiff's ops can reach on a CPU with Inductor's default config, and
# why (read in torch 2.11 and 2.15's sources: the checks each one's pattern or pass runs).
_MMDIFF_REWRITE_NOT_ON_CPU = {
    "joint_graph.bmm_to_mm": "changes a graph only on a GPU",
    "post_grad.unfuse_bias_add_to_pointwise": "GPU only",
    "post_grad.unfuse_bias_baddbmm_to_pointwise": "GPU only",
    "post_grad.mm_plus_mm": "needs max_autotune",
    "post_grad.prepare_softmax_pattern": "needs online_softmax on a GPU",
    "post_grad._replace_quack_symmetric_mm": "CUDA sm100, bfloat16",
    "post_grad._fold_scaled_mm_output_scale": "needs _scaled_mm (float8)",
    "b2b_gemm.b2b_gemm_handler": "needs b2b_gemm_pass and a GPU",
    "decompose_mem_bound_mm.decompose_mm": "needs post_grad_fusion_options decompose_mm_pass",
    "decompose_mem_bound_mm.decompose_bmm": "needs post_grad_fusion_options decompose_mm_pass",
    "decompose_mem_bound_mm.decompose_addmm": "needs post_grad_fusion_options decompose_mm_pass",
    "quantization._register_woq_lowering.locals.woq_int8": "needs an int8 weight-only-quantized mm",
    "post_grad.register_partial_reduction_pattern.locals.reuse_partial":
        "needs a max over every dim beside a partial amax of one tensor (no op of mmdiff's)",
    # freezing's (registered by a freezing compile for inference, as mmdiff's freezing variants make)
    "mkldnn_fusion._register_leaky_relu_fusion_lowering.locals.fn":
        "needs leaky_relu after a linear (no op of mmdiff's)",
    "quantization._register_concat_linear_int8_woq_lowering.locals.woq_int8":
        "needs int8 weight-only-quantized linears sharing an input",
    "freezing_patterns.addmm_patterns_init.locals.int8_woq_fusion_pattern":
        "needs an int8 weight cast to the input's dtype and a per-channel scale after the product",
}
for _name in ("mm", "bmm", "addmm"):
    for _mode in ("inference", "training"):
        _MMDIFF_REWRITE_NOT_ON_CPU[f"{_name}_pattern_{_mode}"] = "pad_mm: GPU only"
# Attention fusions another one shadows: compiled as fuse_attention.py writes them, on its own
# example inputs, the fusion named fires first (measured on 2.15.0 by compiling each pattern function
# of the module; the fusions are registered, and tried, in the same order in 2.11). A dropout that
# keeps every element leaves 3 and 12's inference graphs those of 1 and 11 (7 for 12 in float16,
# and for 11 in float16, which 2.11 registers and 2.15 drops as a duplicate: measured on 2.11); a
# batch of one makes 16's permuted operands plain views, pattern 5's (6's when training); pattern
# 28's strided operands change nothing of pattern 4's graph (2's in inference).
for _shadowed, _first in (("3_inference", "1_inference"), ("3_half_inference", "1_half_inference"),
                          ("12_inference", "11_inference"),
                          ("12_half_inference", "7_half_inference"),
                          ("11_half_inference", "7_half_inference"),
                          ("16_bs1_inference", "5_inference"), ("16_bs1_training", "6_training"),
                          ("16_half_bs1_inference", "5_half_inference"),
                          ("16_half_bs1_training", "6_half_training"),
                          ("28_inference", "2_inference"), ("28_training", "4_training"),
                          ("28_half_inference", "2_half_inference"),
                          ("28_half_training", "4_half_training")):
    _MMDIFF_REWRITE_NOT_ON_CPU["_sfdp_pattern_" + _shadowed] = (
        "shadowed: _sfdp_pattern_" + _first + " fires first on its form")
# 29 and 30 fold sdpa's math form back into sdpa; on a CPU that form casts 16-bit operands to
# float32 before anything else, so their 16-bit forms match only aten._safe_softmax written by hand.
for _n in (29, 30):
    for _variant in ("half", "half_bs1"):
        for _mode in ("inference", "training"):
            _MMDIFF_REWRITE_NOT_ON_CPU[f"_sfdp_pattern_{_n}_{_variant}_{_mode}"] = (
                "sdpa's math form casts 16-bit operands to float32 on a CPU")
# Training forms 2.11 registers for patterns that 2.15 registers for inference only, and that
# nothing reaches on 2.11: compiled as fuse_attention.py writes them, on their own example inputs,
# no fusion fires (15 and 17 to 20), or the joint graph's pointless_convert removes the cast round
# trip of 21 to 23's 16-bit forms before the fusions look (measured on 2.11.0, 2026-11-30).
for _n, _variants in ((15, ("", "half_")), (17, ("", "half_")), (19, ("", "half_")),
                      (20, ("", "half_")), (18, ("", "half_", "bs1_", "half_bs1_")),
                      (21, ("half_", "half_bs1_")), (22, ("half_", "half_bs1_")),
                      (23, ("half_", "half_bs1_"))):
    for _variant in _variants:
        _MMDIFF_REWRITE_NOT_ON_CPU[f"_sfdp_pattern_{_n}_{_variant}training"] = (
            "the joint graph's pointless_convert removes its cast round trip first"
            if _n >= 21 else "its own pattern function, compiled, fires no fusion")


def _mmdiff_rewrite_install_notes():
    """Notes that hold for some releases only, read from this install's own pattern functions:
    2.11's patterns 7 to 10 cast the attention weights to float16 but not v, so their float32
    forms match a float16 by float32 product, which eager rejects (2.15's cast v too)."""
    import inspect
    notes = {}
    try:
        from torch._inductor.fx_passes import fuse_attention
        for n in (7, 8, 9, 10):
            source = inspect.getsource(getattr(fuse_attention, f"_sfdp_pattern_{n}"))
            if "to(torch.float16)" in source and "v = v.to(" not in source:
                for mode in ("inference", "training"):
                    notes[f"_sfdp_pattern_{n}_{mode}"] = (
                        "this release's pattern multiplies float16 weights by a float32 v, "
                        "which eager rejects")
    except Exception:  # another layout of the module: no such note
        pass
    return notes


def _mmdiff_rewrite_in_family(name, ops):
    return bool(ops & set(_MMDIFF_REWRITE_FAMILY)) or name.startswith("joint_graph.pointless_")


def _mmdiff_rewrite_clean(text):
    import re
    text = text.replace("torch._inductor.fx_passes.", "").replace("torch._inductor.", "")
    text = text.replace("<locals>", "locals")
    return re.sub(r"[^A-Za-z0-9_.:-]", "_", text)[:200] or "unnamed"


def _mmdiff_rewrite_function_name(f):
    import functools
    import inspect
    while isinstance(f, functools.partial):
        f = f.func
    f = inspect.unwrap(f)
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__
    return _mmdiff_rewrite_clean(f"{getattr(f, '__module__', '') or ''}.{name}".lstrip("."))


def _mmdiff_rewrite_serialized_names():
    global _mmdiff_rewrite_serialized
    if _mmdiff_rewrite_serialized is None:
        import importlib
        import pkgutil
        from torch._inductor import pattern_matcher as pm
        names = {}
        try:
            import torch._inductor.fx_passes.serialized_patterns as sp
            for info in pkgutil.iter_modules(sp.__path__):
                module = importlib.import_module(f"{sp.__name__}.{info.name}")
                for key, value in vars(module).items():
                    if isinstance(value, pm.PatternExpr) and key.endswith(("_inference", "_training")):
                        names[id(value)] = key
        except Exception:
            pass
        _mmdiff_rewrite_serialized = names
    return _mmdiff_rewrite_serialized


def rewrite_name(entry):
    """The stable name of a pattern-matcher entry (see the top of this file)."""
    import inspect
    from torch._inductor import pattern_matcher as pm
    if isinstance(entry, pm.ReplacementPatternEntry):
        name = getattr(entry, "pattern_name", None) or _mmdiff_rewrite_serialized_names().get(id(entry.pattern))
        if name:
            return _mmdiff_rewrite_clean(name)
        try:
            search = inspect.getclosurevars(entry.extra_check).nonlocals.get("search_fn")
        except (TypeError, ValueError):
            search = None
        if search is not None:
            return _mmdiff_rewrite_function_name(search)
        return "replacement." + type(entry.pattern).__name__
    handler = getattr(entry, "handler", None)
    if handler is not None:
        return _mmdiff_rewrite_function_name(handler)
    return type(entry).__name__ + "." + type(entry.pattern).__name__


def _mmdiff_rewrite_graph_key(graph):
    return tuple((n.name, str(n.target), repr(n.args), repr(n.kwargs)) for n in graph.nodes)


def _mmdiff_rewrite_decomposed_ops():
    import torch
    aten = torch.ops.aten
    return {"decompose.mm": aten.mm.default, "decompose.bmm": aten.bmm.default,
            "decompose.addmm": aten.addmm.default}


def install_rewrite_observer():
    """Wraps entry.apply and the mm/bmm/addmm decompositions once, to record what fires."""
    if _mmdiff_rewrite_installed:
        return
    _mmdiff_rewrite_installed.append(True)
    import functools
    from torch._inductor import pattern_matcher as pm
    fired = _mmdiff_rewrites_fired

    def observed_apply(original, graph_entry):
        @functools.wraps(original)
        def apply(self, match, graph, node, *args, **kwargs):
            before = _mmdiff_rewrite_graph_key(graph) if graph_entry else None
            try:
                return original(self, match, graph, node, *args, **kwargs)
            finally:
                if not graph_entry or _mmdiff_rewrite_graph_key(graph) != before:
                    fired.append(rewrite_name(self))
        return apply

    for cls in {pm.ReplacementPatternEntry, pm.GraphPatternEntry, pm.LoweringPatternEntry,
                *pm.PatternEntry.__subclasses__()}:
        if "apply" in vars(cls):
            cls.apply = observed_apply(vars(cls)["apply"], issubclass(cls, pm.GraphPatternEntry))
    try:  # each compile builds its table afresh from this dict
        from torch._inductor import decomposition
    except Exception:
        return
    table = decomposition.decompositions
    for name, op in _mmdiff_rewrite_decomposed_ops().items():
        original = table.get(op)
        if original is None:
            continue

        def observed(original=original, name=name):
            @functools.wraps(original)
            def decompose(*args, **kwargs):
                result = original(*args, **kwargs)
                if result is not NotImplemented:
                    fired.append(name)
                return result
            return decompose
        table[op] = observed()


def take_rewrites():
    """The names fired since the last call, sorted and each once."""
    names = sorted(set(_mmdiff_rewrites_fired))
    del _mmdiff_rewrites_fired[:]
    return names


# Namespaces of quantization's ops (PT2E's quantize/dequantize and no-fuse casts, oneDNN's packed
# quantized linears): no mmdiff program has one, so a pattern with one is out of reach; its ops are
# listed as namespace.op.
_MMDIFF_QUANTIZED_NAMESPACES = ("quantized_decomposed", "quantized", "onednn")


def _mmdiff_rewrite_targets(pattern):
    """The names of the ops anywhere in a pattern expression (namespace.op for quantization's)."""
    from torch._inductor import pattern_matcher as pm
    seen, out = set(), set()

    def walk(o):
        if id(o) in seen:
            return
        seen.add(id(o))
        if isinstance(o, pm._TargetExpr):
            for fn in o.fns:
                packet = getattr(fn, "overloadpacket", fn)
                op = getattr(packet, "__name__", str(packet)).split(".")[-1]
                space = str(getattr(packet, "_qualified_op_name", "")).split("::")[0]
                out.add(space + "." + op if space in _MMDIFF_QUANTIZED_NAMESPACES else op)
        if isinstance(o, pm.PatternExpr):
            for v in vars(o).values():
                walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
    walk(pattern)
    return out


def _mmdiff_rewrite_rows():
    """Every entry of every pattern-matcher pass now alive, {name: [kind, ops]}."""
    import gc
    from torch._inductor import pattern_matcher as pm
    rows = {}
    for obj in gc.get_objects():
        try:
            if not isinstance(obj, pm.PatternMatcherPass):
                continue
        except ReferenceError:
            continue
        for entries in list(obj.patterns.values()):
            for entry in entries:
                ops = _mmdiff_rewrite_targets(entry.pattern)
                kind = type(entry).__name__.replace("PatternEntry", "").lower() or "entry"
                row = rows.setdefault(rewrite_name(entry), [kind, set()])
                row[1] |= ops
    return rows


def _mmdiff_rewrite_quantized_note(ops):
    """Why a pattern of quantized ops (or of _int_mm, an int8 product no mmdiff op makes) is out
    of reach; empty for any other."""
    quantized = sorted(op for op in ops
                       if op == "_int_mm" or op.split(".")[0] in _MMDIFF_QUANTIZED_NAMESPACES)
    return ("needs quantized ops (" + ", ".join(quantized) + "): no op of mmdiff's"
            if quantized else "")


def _mmdiff_rewrite_listing(rows):
    notes = {**_MMDIFF_REWRITE_NOT_ON_CPU, **_mmdiff_rewrite_install_notes()}
    return [{"name": name, "kind": kind, "family": _mmdiff_rewrite_in_family(name, ops),
             "ops": sorted(ops),
             "note": notes.get(name) or _mmdiff_rewrite_quantized_note(ops)}
            for name, (kind, ops) in sorted(rows.items())]


def rewrite_catalogue():
    """Every rewrite of this torch, {name, kind, family, ops, note}: after an inference, a training
    and a freezing compile, so that Inductor's lazily registered passes (attention, padding, misc,
    freezing's) are there."""
    import torch
    import torch._dynamo

    import torch._inductor.config

    def f(x, w):
        return (x @ w).softmax(-1)
    # A cache hit would skip the passes, and with them their lazy registration.
    with torch._inductor.config.patch(force_disable_caches=True):
        torch.compile(f, backend="inductor", fullgraph=True)(torch.randn(4, 4), torch.randn(4, 4))
        torch._dynamo.reset()
        x = torch.randn(4, 4, requires_grad=True)
        torch.compile(f, backend="inductor", fullgraph=True)(x, torch.randn(4, 4)).sum().backward()
        torch._dynamo.reset()
        # A model compiled with freezing for inference registers the freezing passes (mkldnn's
        # weight packing and fusions, the concatenated linears), as mmdiff's freezing variants do.
        model = torch.nn.Linear(4, 4).eval()
        with torch._inductor.config.patch(freezing=True), torch.no_grad():
            torch.compile(model, fullgraph=True)(torch.randn(4, 4))  # inductor
        torch._dynamo.reset()
    out = _mmdiff_rewrite_listing(_mmdiff_rewrite_rows())
    for name, op in _mmdiff_rewrite_decomposed_ops().items():
        out.append({"name": name, "kind": "decomposition", "family": True,
                    "ops": [op.name().split("::")[-1]], "note": ""})
    return out


def attention_fusion_catalogue():
    """The attention fusions (_sfdp_pattern_N_...) this torch registers for a CPU, listed as
    rewrite_catalogue() lists them but without compiling anything: fuse_attention registers them
    itself (_sfdp_init, what a first compile calls), in about a second."""
    import torch
    from torch._inductor.fx_passes import fuse_attention
    fuse_attention._sfdp_init(torch.device("cpu"))
    return [r for r in _mmdiff_rewrite_listing(_mmdiff_rewrite_rows())
            if r["name"].startswith("_sfdp_pattern_")]
