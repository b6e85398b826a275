# The runner `mmdiff releases` generates per finding (EmitReleaseRunner in release_runner.cc): it
# runs the finding's Python paths in another torch release's venv, with no mmdiff build there, and
# writes each path's result as one JSON line that mmdiff reads back as a PathResult
# (src/releases/runner_output.cc) and judges against this build's reference. Eager runs f as a
# whole; the line of f that raised names the node, as mmdiff's eager path (node by node) does.
# Runs after PATHS ((path, action, torch.compile's backend) per path, from mmdiff's path catalogue,
# so that nothing here names a path), VARIANTS where a knob variant runs ({path: (its
# torch._inductor.config settings, dynamic=True, under no_grad)} and knob_variants.py),
# TS_SOURCE, the input builder, f, REPRODUCER_FAILED, root_cause() and repro.py's runner
# (repro_outcome.py: inputs(), gradients()), and, for a case with calls before it, CALLS_BEFORE
# and calls_before() (repro_calls_before.py), which the paths that keep state make first; needs
# sys and torch imported.
#
# Output file (sys.argv[1]), one JSON object per line, flushed as it goes so that a run that dies
# still tells which paths finished: {"torch": version, "python": version} first, then per path
# {"path", "outcome": "ok"|"error"|"unsupported" (the release lacks what the path needs), "seconds", "error_class", "error_type", "message", "node",
# "backward", "outputs": [{"dtype", "shape", "device", "data": float64 little-endian, hex}]}.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text must stay standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
import json
import linecache
import platform
import re
import struct
import time


def _rr_node(e):
    """The node whose line of f raised (innermost frame of f), or ""."""
    node = ""
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is f.__code__:
            line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            m = re.match(r"\s*(\w+)\s*=", line)
            node = m.group(1) if m else ""
        tb = tb.tb_next
    return node


def _rr_tensor(t):
    d = {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
         "device": t.device.type}
    if t.device.type != "meta":
        flat = t.detach().to("cpu", torch.float64).contiguous().reshape(-1).tolist()
        d["data"] = struct.pack(f"<{len(flat)}d", *flat).hex()
    return d


def _rr_error(e, by_node, backward=False):
    cls, typ, message = root_cause(e)
    return {"outcome": "error", "error_class": cls, "error_type": typ, "message": message,
            "node": _rr_node(e) if by_node and not backward else "", "backward": backward}


def _rr_result(fn, on_meta=False, by_node=False, settings=None):
    args = inputs()  # exits REPRODUCER_FAILED when they cannot be built here
    if on_meta:  # the same inputs as leaves on meta
        args = [a.detach().to("meta").requires_grad_(a.requires_grad) for a in args]
    try:
        outs = list(fn(*args))
    except Exception as e:
        why = no_template_choice(e, settings) if settings else ""  # knob_variants.py
        if why:
            return {"outcome": "unsupported", "message": why}
        return _rr_error(e, by_node)
    args = getattr(fn, "ran", None) or args  # a model's call: its weights' gradients are there
    if GRAD_INPUTS:
        try:
            outs += gradients(args, outs)
        except Exception as e:
            return _rr_error(e, by_node, backward=True)
    return {"outcome": "ok", "outputs": [_rr_tensor(t) for t in outs]}


def _rr_compiled(build):
    """build() compiles f ahead of the run: its failure is the path's error, as in mmdiff."""
    try:
        compiled = build()
    except Exception as e:
        return None, _rr_error(e, False)
    return compiled, None


def _rr_before(fn):
    """fn, called first on the case's calls before (if any), as mmdiff's paths that keep state are."""
    if "CALLS_BEFORE" in globals():
        calls_before(fn, quiet=True)
    return fn


def _rr_first_inputs():
    """What builds the inputs of the compiled function's first call: the first call before, if any."""
    if "CALLS_BEFORE" in globals():
        return lambda: make_inputs_before(*CALLS_BEFORE[0])
    return None


def _rr_missing(action):
    """What this release lacks to run a path as mmdiff does, or "" when it has everything."""
    needs = {"torch_compile": ["compile"], "jit_compilation_unit": ["jit.CompilationUnit"],
             "aoti_package": ["export.export", "_inductor.aoti_compile_and_package",
                              "_inductor.aoti_load_package"]}.get(action, [])
    for name in needs:
        owner = torch
        for part in name.split("."):
            owner = getattr(owner, part, None)
        if owner is None:
            return f"torch {torch.__version__} has no torch.{name}"
    return ""


def _rr_path(action, backend, path=""):
    """One path's result, run as PATHS says (mmdiff's path catalogue decides the action), a knob
    variant as VARIANTS says: its torch._inductor.config settings in force, dynamic=True, under
    torch.no_grad()."""
    missing = _rr_missing(action)
    if missing:
        return {"outcome": "unsupported", "message": missing}
    settings, dynamic, no_grad = globals().get("VARIANTS", {}).get(path, ({}, False, False))
    if settings or dynamic or no_grad:
        import contextlib
        import importlib
        config = importlib.import_module("torch._inductor.config")  # not `import torch...`: torch
        absent = [k for k in settings if not hasattr(config, k)]     # stays the global
        if absent:
            return {"outcome": "unsupported",
                    "message": f"torch {torch.__version__} has no torch._inductor.config."
                               f"{absent[0]}"}
        grad = torch.no_grad() if no_grad else contextlib.nullcontext()
        with config.patch(settings), grad:
            return _rr_variant(backend, settings, dynamic)
    model = "WEIGHTS" in globals()  # a program with weights runs as its model (module_call)
    if action == "call":
        return _rr_result(module_call() if model else f, by_node=True)
    if action == "call_on_meta":
        return _rr_result(f, on_meta=True, by_node=True)
    if action == "torch_compile":
        torch._dynamo.reset()
        if model:
            return _rr_result(_rr_before(module_call(
                lambda m: torch.compile(m, backend=backend, fullgraph=True))))
        return _rr_result(_rr_before(torch.compile(f, backend=backend, fullgraph=True)))
    if action == "jit_compilation_unit":
        compiled, error = _rr_compiled(lambda: torch.jit.CompilationUnit(TS_SOURCE).f)
        if error:
            return error
        if GRAD_INPUTS:  # as mmdiff runs training: after the profiling runs (autodiff's graph)
            for _ in range(torch._C._jit_get_num_profiled_runs()):
                try:
                    compiled(*inputs(_rr_first_inputs()))
                except Exception:
                    pass  # the run below raises it again
        return _rr_result(_rr_before(compiled))
    if action == "aoti_package":
        compiled, error = _rr_compiled(lambda: aoti(f, inputs()))
        return error or _rr_result(compiled)
    raise ValueError(f"no runner action named {action}")


def _rr_variant(backend, settings, dynamic):
    """A knob variant's torch.compile, its settings already in force."""
    torch._dynamo.reset()
    kwargs = {"backend": backend, "fullgraph": True, **({"dynamic": True} if dynamic else {})}
    if "WEIGHTS" in globals():
        return _rr_result(_rr_before(module_call(lambda m: torch.compile(m, **kwargs))),
                          settings=settings)
    return _rr_result(_rr_before(torch.compile(f, **kwargs)), settings=settings)


def _rr_main(out_path):
    with open(out_path, "w") as out:
        def write(obj):
            out.write(json.dumps(obj) + "\n")
            out.flush()
        write({"torch": torch.__version__, "python": platform.python_version()})
        for path, action, backend in PATHS:
            start = time.perf_counter()
            result = _rr_path(action, backend, path)
            result.update(path=path, seconds=time.perf_counter() - start)
            write(result)


_rr_main(sys.argv[1])
