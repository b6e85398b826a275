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
#     "lowering:micro_gemm.<class>.<isa>" for the micro-kernel each one made (CppMicroGemmFP32Vec on
#     VecAVX512, CppMicroGemmAMX, CppMicroBrgemm, ...), "lowering:micro_gemm_tail.<m|n|k>" where that
#     size is not a multiple of the micro-kernel's register block, and
#     "lowering:template_epilogue.<op>" for each aten op of the epilogues fused into it;
#   - "lowering:decompose.<op>": a product Inductor decomposed into pointwise code (the rewrites'
#     decompose.mm, ... say so).
# Observing never changes what Inductor does: CppScheduling.codegen_template and create_micro_gemm
# are wrapped by functions that call the originals with the same arguments and return their results.
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
                isa = type(cpp_micro_gemm.pick_vec_isa()).__name__
                _mmdiff_lowerings_seen.append(
                    "lowering:micro_gemm." + type(micro).__name__ + "." + isa)
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
