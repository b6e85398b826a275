# How Inductor lowered a program's products on a CPU, named and observed: the worker records, for
# each compile, which lowering each product got, so that a campaign can count the lowerings it
# reached (lowering coverage, beside the rewrites of inductor_rewrites.py). Names:
#   - "lowering:extern.<op>": an ATen call (extern_kernels.mm, .addmm, .bmm, ...) in the code Inductor
#     wrote;
#   - "lowering:<namespace>.<op>.<overload>[:<attr>]": a prepacked or fused op of mkldnn, mkl or
#     onednn in that code (freezing's weight prepacking: mkl._mkl_linear.default,
#     mkldnn._linear_pointwise.default:relu with its fused unary epilogue, .binary:add with a binary
#     one);
#   - "lowering:template.<class>": a C++ template kernel Inductor generated (CppGemmTemplate,
#     CppBmmTemplate, CppGroupedGemmTemplate: max-autotune's choices on a CPU), with
#     "lowering:micro_gemm.<class>.<isa>.<dtype>" for the micro-kernel each one made, named by the
#     configuration Inductor picked (CppMicroGemmFP32Vec.VecAVX512.bfloat16, CppMicroGemmAMX.VecAMX
#     .float16, ...; "<dtype>_<dtype>" where the two operands differ; the class alone for one
#     made from no configuration: CppMicroGemmRef, the naive kernel for dtypes none takes),
#     "lowering:micro_gemm_tail.<m|n|k>" where that size is not a multiple of the micro-kernel's
#     register block, "lowering:template_epilogue.<op>" for each aten op of the epilogues fused
#     into it, and "lowering:template_shared_product.<class>" where that kernel writes more than one
#     result read outside it (the product returned as well as its epilogue: pytorch#185405's form);
#   - "lowering:decompose.<op>": a product Inductor decomposed into pointwise code (the rewrites'
#     decompose.mm, ... say so).
# Observing never changes what Inductor does: CppScheduling.codegen_template and create_micro_gemm
# are wrapped by functions that call the originals with the same arguments and return their results.
# lowering_catalogue() lists, for `mmdiff rewrites`, the lowerings a product can get from this torch
# on this CPU, each with why a program cannot reach it here where it cannot (a micro-kernel for
# another vector ISA, quantized weights, an epilogue mmdiff does not generate).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file.

# ---- embedded from here on (cmake/embed_python.cmake) ----
_mmdiff_lowerings_seen = []  # names recorded while templates were generated, since last taken
_mmdiff_lowering_state = {"installed": False, "in_template": 0}


def _mmdiff_lowering_int(v):
    try:
        return int(v)
    except Exception:  # a symbolic size
        return None


def _mmdiff_micro_gemm_name(cls_name, isa_name, input_dtype, input2_dtype):
    dtypes = str(input_dtype).replace("torch.", "")
    if input2_dtype != input_dtype:
        dtypes += "_" + str(input2_dtype).replace("torch.", "")
    return "lowering:micro_gemm." + cls_name + "." + isa_name + "." + dtypes


def _mmdiff_micro_gemm_config(configs, micro, isa):
    """The configuration a micro-kernel was made from (create_micro_gemm picks it among those of
    its class whose vector ISA the CPU's is, or derives from), or None."""
    for cfg in configs.get(type(micro), ()):
        if isinstance(isa, cfg.vec_isa_cls) and cfg.register_blocking == micro.register_blocking \
                and (cfg.input_dtype, cfg.input2_dtype, cfg.output_dtype, cfg.compute_dtype) == \
                (micro.input_dtype, micro.input2_dtype, micro.output_dtype, micro.compute_dtype):
            return cfg
    return None


def _mmdiff_product_shared(template_node, epilogue_nodes):
    """True where the kernel of a template and the epilogue fused into it writes more than one
    result read outside it: the product (or the epilogue's intermediate, a linear's biased
    product) returned or read elsewhere as well as the epilogue's result."""
    group = [template_node] + list(epilogue_nodes)
    fused = set(node.get_name() for node in group)
    escaping = 0
    for node in group:
        for buf in node.get_outputs():
            escaping += any(user.get_name() not in fused for user in getattr(buf, "users", ()))
    return escaping > 1


def install_lowering_observer():
    """Wraps, once, the template codegen and the micro-kernel factory of the installed Inductor;
    an Inductor without them (another release's layout) records no template lowering."""
    state = _mmdiff_lowering_state
    if state["installed"]:
        return
    state["installed"] = True
    import functools
    import sys
    try:
        # The codegen modules import each other in a cycle that only lowering's import order
        # resolves: imported first on their own, they fail (and nothing would be observed).
        import torch._inductor.lowering  # noqa: F401
        from torch._inductor.codegen import cpp as cpp_codegen
        from torch._inductor.codegen import cpp_micro_gemm
    except Exception:
        return
    original_codegen = cpp_codegen.CppScheduling.codegen_template

    @functools.wraps(original_codegen)
    def codegen_template(self, template_node, epilogue_nodes, *args, **kwargs):
        seen = []
        try:
            template = getattr(getattr(template_node, "node", None), "template", None)
            seen.append("lowering:template." + type(template).__name__)
            if epilogue_nodes and _mmdiff_product_shared(template_node, epilogue_nodes):
                seen.append("lowering:template_shared_product." + type(template).__name__)
            for node in epilogue_nodes:
                for origin in getattr(getattr(node, "node", None), "origins", ()) or ():
                    target = getattr(origin, "target", None)
                    name = getattr(target, "__name__", None) or str(target)
                    seen.append("lowering:template_epilogue." + name.split(".")[0])
        except Exception:
            pass
        _mmdiff_lowerings_seen.extend(seen)
        state["in_template"] += 1
        try:
            return original_codegen(self, template_node, epilogue_nodes, *args, **kwargs)
        finally:
            state["in_template"] -= 1

    cpp_codegen.CppScheduling.codegen_template = codegen_template
    original_create = cpp_micro_gemm.create_micro_gemm

    @functools.wraps(original_create)
    def create_micro_gemm(name, m, n, k, *args, **kwargs):
        micro = original_create(name, m, n, k, *args, **kwargs)
        if state["in_template"] and micro is not None:
            try:
                isa = cpp_micro_gemm.pick_vec_isa()
                cfg = _mmdiff_micro_gemm_config(cpp_micro_gemm.micro_gemm_configs, micro, isa)
                _mmdiff_lowerings_seen.append(
                    _mmdiff_micro_gemm_name(type(micro).__name__, cfg.vec_isa_cls.__name__,
                                            micro.input_dtype, micro.input2_dtype)
                    if cfg else "lowering:micro_gemm." + type(micro).__name__)
                blocks = getattr(micro, "register_blocking", None)
                for size, block, dim in zip((m, n, k), blocks or (), "mnk"):
                    size, block = _mmdiff_lowering_int(size), _mmdiff_lowering_int(block)
                    if size is not None and block and size % block:
                        _mmdiff_lowerings_seen.append("lowering:micro_gemm_tail." + dim)
            except Exception:
                pass
        return micro

    # The templates import the factory by name: each module's own reference is wrapped.
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("torch._inductor.codegen") and \
                getattr(module, "create_micro_gemm", None) is original_create:
            module.create_micro_gemm = create_micro_gemm


def take_lowerings():
    """The template lowerings recorded since the last call, and forgets them."""
    out = list(_mmdiff_lowerings_seen)
    del _mmdiff_lowerings_seen[:]
    return out


def lowerings_in_code(code):
    """The lowerings the code Inductor wrote names: its ATen calls and its mkldnn, mkl and onednn
    ops (with the unary or binary attribute a fused one carries)."""
    import re
    names = set("lowering:extern." + op for op in re.findall(r"extern_kernels\.(\w+)\(", code))
    for namespace, op, overload, rest in re.findall(
            r"torch\.ops\.(mkldnn|mkl|onednn)\.(\w+)\.(\w+)\(([^\n]*)", code):
        name = "lowering:" + namespace + "." + op + "." + overload
        attr = re.findall(r"'(\w+)'", rest)
        names.add(name + (":" + attr[0] if attr and op.endswith("_pointwise") else ""))
    return names


# The epilogues mkldnn fuses into a packed linear (its unary post-ops), those mmdiff's programs
# write (relu, sigmoid, tanh, gelu, silu as "swish", clamp as "hardtanh") and those they do not.
_MMDIFF_LINEAR_POSTOPS = ("none", "relu", "sigmoid", "tanh", "gelu", "swish", "hardtanh")
_MMDIFF_LINEAR_POSTOPS_NOT_GENERATED = ("hardswish", "hardsigmoid", "leaky_relu")


def lowering_catalogue():
    """The lowerings a CPU program's products can get from this torch on this CPU, as
    install_lowering_observer() and lowerings_in_code() name them: [{name, kind: "kernel", family:
    True, ops, note}], note saying why no program can reach it here ("" where one can)."""
    import torch
    import torch._inductor.lowering  # noqa: F401 (imports the codegen modules in their order)
    from torch._inductor import cpu_vec_isa
    from torch._inductor.codegen import cpp_micro_gemm
    rows = []

    def add(name, ops, note=""):
        if all(r["name"] != name for r in rows):
            rows.append({"name": name, "kind": "kernel", "family": True, "ops": ops,
                         "note": note[:200]})

    for op in ("mm", "addmm", "bmm", "baddbmm"):
        add("lowering:extern." + op, [op])
    add("lowering:mkl._mkl_linear.default", ["linear"],
        "" if torch.backends.mkl.is_available() else "this torch has no MKL")
    # Freezing packs a float32 linear for mkldnn where its batch is symbolic (mmdiff's
    # inductor_freezing_dynamic), a 16-bit one where oneDNN has bfloat16/float16 kernels here.
    no_mkldnn = "" if torch._C._has_mkldnn else "this torch has no mkldnn"
    for attr in _MMDIFF_LINEAR_POSTOPS:
        add("lowering:mkldnn._linear_pointwise.default:" + attr, ["linear"], no_mkldnn)
    add("lowering:mkldnn._linear_pointwise.binary:add", ["linear", "add"], no_mkldnn)
    for attr in _MMDIFF_LINEAR_POSTOPS_NOT_GENERATED:
        add("lowering:mkldnn._linear_pointwise.default:" + attr, ["linear"],
            "an epilogue mmdiff does not generate (" + attr + ")")
    for module, cls in (("cpp_gemm_template", "CppGemmTemplate"),
                        ("cpp_bmm_template", "CppBmmTemplate"),
                        ("cpp_grouped_gemm_template", "CppGroupedGemmTemplate")):
        try:
            __import__("torch._inductor.codegen." + module, fromlist=[cls])
        except ImportError:
            continue
        note = ""
        if "Grouped" in cls and not (torch.ops.mkldnn._is_mkldnn_bf16_supported() or
                                     torch.ops.mkldnn._is_mkldnn_fp16_supported()):
            note = ("groups linears freezing packed for mkldnn, in max-autotune's static compile "
                    "only 16-bit ones, whose oneDNN kernels this CPU lacks (AVX-512 or AMX)")
        add("lowering:template." + cls, ["linear" if "Grouped" in cls else "mm"], note)
        if "Grouped" not in cls:  # an epilogue fused in while the product is an output too
            add("lowering:template_shared_product." + cls, ["mm", "relu"])
    isa = cpu_vec_isa.pick_vec_isa()
    isa_name = type(isa).__name__ if isa else "none"
    floats = (torch.float32, torch.bfloat16, torch.float16)
    blocks = set()
    for cls, configs in cpp_micro_gemm.micro_gemm_configs.items():
        for cfg in configs:
            name = _mmdiff_micro_gemm_name(cls.__name__, cfg.vec_isa_cls.__name__,
                                           cfg.input_dtype, cfg.input2_dtype)
            note = ""
            if cfg.input_dtype not in floats or cfg.input2_dtype != cfg.input_dtype:
                note = ("quantized operands (" + name.rsplit(".", 1)[1].replace("_", " by ") +
                        "): an op mmdiff does not have")
            elif not isa or not isinstance(isa, cfg.vec_isa_cls):
                note = ("made only where the CPU's vector ISA is " + cfg.vec_isa_cls.__name__ +
                        " or derives from it; this CPU's is " + isa_name)
            elif cfg.input_dtype == torch.float16 and cfg.vec_isa_cls.__name__ == "VecAMX" and \
                    not torch.cpu._is_amx_fp16_supported():
                note = "float16 on AMX needs AMX-FP16, which this CPU lacks"
            if not note:
                blocks.add(cfg.register_blocking)
            add(name, ["mm"], note)
    # The naive kernel create_micro_gemm falls back to where no configuration takes the operands'
    # dtypes (a bfloat16 by float16 product that freezing's casts leave).
    add("lowering:micro_gemm.CppMicroGemmRef", ["mm"])
    for dim in "mnk":
        big = any(getattr(b, "block_" + dim) > 1 for b in blocks)
        add("lowering:micro_gemm_tail." + dim, ["mm"],
            "" if big else "the micro-kernels this CPU can use take " + dim + " one at a time")
    return rows
