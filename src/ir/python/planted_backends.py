# Deliberately wrong torch.compile backends, for mmdiff's own tests (the test-only paths
# planted_recompile and planted_worker_only, src/backends/compiled_backend.cc):
#   mmdiff_planted_recompile: right on a function's first compile, wrong once Dynamo recompiles it
#     with symbolic sizes (a later call with new sizes), where it doubles every floating output: a
#     divergence that shows only after a call before the case's, which a campaign must record and
#     `mmdiff run`, reduction, replay and repro.py must replay (src/ir/call_sequence.h).
#   mmdiff_planted_worker_only: doubles every floating output inside mmdiff's worker only (where
#     the worker's helpers are defined), and is right in a plain Python: a finding whose repro.py
#     cannot show it, which a campaign must list as not reproduced standalone.
#   mmdiff_planted_drop_bias: Inductor after dropping every linear's bias, as a lowering that loses a
#     fused epilogue would: the backend of the test-only knob variant planted_variant_drop_bias,
#     whose findings must be blamed on it, not on inductor.
# The worker registers them with its first compile (Dynamo's import); a repro.py of such a path
# carries this text and registers them there.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def _mmdiff_doubled(gm):
    def wrong(*args):  # every floating output doubled
        outs = gm(*args)
        return type(outs)(o * 2 if isinstance(o, torch.Tensor) and o.is_floating_point() else o
                          for o in outs)
    return wrong


def _mmdiff_planted_recompile(gm, example_inputs):
    if not any(isinstance(x, torch.SymInt) for x in example_inputs):
        return gm.forward  # a first compile (static sizes): right
    return _mmdiff_doubled(gm)  # a recompile with symbolic sizes: wrong


def _mmdiff_planted_worker_only(gm, example_inputs):
    return _mmdiff_doubled(gm) if "_mmdiff_program" in globals() else gm.forward


def _mmdiff_planted_drop_bias(gm, example_inputs):
    import torch._inductor.compile_fx
    for node in gm.graph.nodes:
        if (node.op == "call_function" and node.target in (torch._C._nn.linear,
                                                          torch.nn.functional.linear)
                and len(node.args) == 3 and node.args[2] is not None):
            node.args = node.args[:2]  # the bias, dropped
    gm.recompile()
    return torch._inductor.compile_fx.compile_fx(gm, example_inputs)


def _mmdiff_register_planted_backends():
    # Called with Dynamo's import, by the worker's first compile (_mmdiff_load_compiler).
    import torch._dynamo
    for name, fn in (("mmdiff_planted_recompile", _mmdiff_planted_recompile),
                     ("mmdiff_planted_worker_only", _mmdiff_planted_worker_only),
                     ("mmdiff_planted_drop_bias", _mmdiff_planted_drop_bias)):
        try:
            torch._dynamo.register_backend(fn, name)
        except Exception:  # registered already
            pass
