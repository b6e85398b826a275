# The helpers of the compiled paths (compiled_backend.cc), run once in the worker's embedded
# interpreter, in __main__ (EnsurePython in embedded_python.cc). _mmdiff_function compiles a
# program's function with torch.compile once per backend and knob, and _mmdiff_call runs it and
# gives ("ok", [tensors], info) or ("error", class, qualified type, message, info): the root cause
# as root_cause() names it (src/ir/python/root_cause.py, run in __main__ before this text), and
# info = (compiled, reused, fx graph cache hits, misses, [what Inductor chose: kernels, fallbacks,
# torch's counters, and as "rewrite:<name>" the graph rewrites that fired while it compiled the
# function, on this call or an earlier one that it reuses, named and observed by
# src/ir/python/inductor_rewrites.py, run in __main__ before this text, as "lowering:<name>" the
# lowering each product got (src/ir/python/inductor_lowerings.py, likewise), and "leak:autocast" when
# the call left torch.autocast's state changed, which it then restores], {phase: seconds}):
# where the call's time went (_mmdiff_phases), from torch's own compile timers. For a training
# program _mmdiff_backward then takes the outputs' cotangents (made in C++ from the recipe) and
# gives the gradients the same way, with the info of the backward's own compile. A knob variant
# whose settings cannot compile the program (max-autotune with only the C++ templates, for a
# product no template takes) gives ("unsupported", why, info) instead. A program with weights is
# compiled as its model (module_call, src/ir/python/repro_module.py, run in __main__ before this
# text).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file.

# ---- embedded from here on (cmake/embed_python.cmake) ----
import sys
import torch

# Compile once, run many: the functions compiled for the current program, by backend and knob. A new
# program resets dynamo once, so that the paths of one program (and its input variants) keep theirs.
_mmdiff_program = {"source": None, "fns": {}, "files": set()}
_mmdiff_codes = []

def _mmdiff_exec(source, key):
    # The function's source is a file in linecache, so that inspect.getsourcefile finds it: torch
    # 2.11's torch.compile runs a function without a source file (exec'd as "<string>") through one
    # frame shared by all of them (external_utils.wrap_inline's inner), whose cache then holds an
    # entry for every function compiled since the last reset, up to recompile_limit (8): past it,
    # every compile of any function fails with "Dynamo recompile limit exceeded". One file per key:
    # what Dynamo learns of a function by its file (which sizes are dynamic) stays the key's, also
    # when the function is replaced.
    import linecache
    name = f"<mmdiff {key}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    _mmdiff_program["files"].add(name)
    ns = {"torch": torch}
    exec(compile(source, name, "exec"), ns)
    return ns

def _mmdiff_forget():
    # A fresh request (Backend::Forget): the next function starts afresh, as for a new program, so
    # that what earlier calls compiled (guards, recompiles, sizes marked dynamic) is gone.
    _mmdiff_program["source"] = None

def _mmdiff_load_compiler():
    # Dynamo and Inductor take seconds to import, which a worker that runs only eager and the
    # reference never needs (its restarts after a crash, a campaign without compiled paths): they
    # are imported by the first compile, with the hook on Inductor's output code and the planted
    # torch.compile backends (src/ir/python/planted_backends.py, defined after this text).
    if _mmdiff_program.get("compiler"):
        return
    import torch._dynamo
    try:  # Inductor hands each compiled (or cache-loaded) module's source to this hook
        from torch._inductor.graph import GraphLowering
        GraphLowering.save_output_code = staticmethod(_mmdiff_codes.append)
    except Exception:
        pass
    register = globals().get("_mmdiff_register_planted_backends")
    if register:
        register()
    _mmdiff_program["compiler"] = True

def _mmdiff_function(source, backend, key, dynamic=False):
    _mmdiff_load_compiler()
    if source != _mmdiff_program["source"]:
        import linecache
        torch._dynamo.reset()
        for name in _mmdiff_program["files"]:
            linecache.cache.pop(name, None)
        _mmdiff_program.update(source=source, fns={}, files=set())
    fns = _mmdiff_program["fns"]
    # Dynamo fails (fullgraph=True) a function past its recompile limit (8 compiles) or past
    # accumulated_recompile_limit (256 tries: a failed compile leaves nothing cached, so each call
    # tries again): a function that has compiled a few times (new sizes, new dtypes in a
    # reduction), or tried many times, is replaced by a fresh one.
    _mmdiff_program["reused"] = key in fns and fns[key][1] < 4 and fns[key][2] < 64
    if not _mmdiff_program["reused"]:
        # dynamic=True: every size symbolic from the first call (the default, None, compiles static
        # sizes first and marks a size dynamic when a new one arrives).
        # [function, compiles, tries, the rewrites its compiles applied, the lowerings they chose]
        ns = _mmdiff_exec(source, key)

        def compiled(fn):
            return torch.compile(fn, backend=backend, fullgraph=True,
                                 dynamic=True if dynamic else None)
        # A program with weights is compiled as the model it is (module_call, repro_module.py,
        # run in __main__ before this text): the module holds the weights, forward takes the rest.
        fn = module_call(compiled, ns) if ns.get("WEIGHTS") else compiled(ns["f"])
        fns[key] = [fn, 0, 0, set(), set()]
    _mmdiff_program["key"] = key
    return fns[key][0]

def _mmdiff_internals(codes, inductor_delta, rewrites=(), lowerings=()):
    import re
    names = set("rewrite:" + r for r in rewrites) | set(lowerings)
    # A product decomposed into pointwise code is a lowering too (inductor_lowerings.py).
    names.update("lowering:" + r for r in rewrites if r.startswith("decompose."))
    for code in codes:
        names.update("extern:" + k for k in re.findall(r"extern_kernels\.(\w+)\(", code))
        names.update("fallback:" + k for k in re.findall(r"torch\.ops\.aten\.(\w+)\.", code))
        fused = len(re.findall(r"= async_compile\.(?:cpp|cpp_pybinding|triton)\(", code))
        names.add("fused:" + (str(fused) if fused < 3 else "3+"))
        if re.search(r"cpp_templated|triton_tem_|template", code):
            names.add("template")
    skip = ("fxgraph_cache", "extern_calls", "async_compile")
    names.update("pattern:" + k for k, v in inductor_delta.items() if v and not k.startswith(skip))
    return sorted(names)

def _mmdiff_phases(metrics, call_s):
    # torch._dynamo.utils.compilation_time_metrics: seconds per timed function, nested (Dynamo's
    # compile_inner holds the backend's compile, which holds Inductor's, which holds lowering, then
    # code generation and loading the module, both of which may run the C++ compiler: with one
    # compile thread it compiles each kernel where it is asked for). Split into parts that do
    # not overlap.
    t = lambda key: float(sum(metrics.get(key, ())))
    dynamo, backend = t("_compile.compile_inner"), t("OutputGraph.call_user_compiler")
    inductor, cpp = t("compile_fx_inner"), t("compile_file")
    lowering = t("GraphLowering.run")
    codegen_and_load = t("GraphLowering.codegen") + t("PyCodeCache.load_by_key_path")
    return {"dynamo": max(dynamo - backend, 0.0), "aot_autograd": max(backend - inductor, 0.0),
            "inductor_lowering": lowering,
            "inductor_codegen": max(codegen_and_load - cpp, 0.0), "cpp_compile": cpp,
            "inductor_other": max(inductor - lowering - codegen_and_load, 0.0),
            # Dynamo's compile holds the others in a forward call; a backward's first call compiles
            # in AOTAutograd and Inductor alone: what no compile timer holds is running.
            "run": max(call_s - max(dynamo, backend, inductor), 0.0)}

_MMDIFF_AUTOCAST_DEVICES = ("cpu", "cuda")

def _mmdiff_autocast_state():
    # torch.autocast's state on this thread: how deep in regions, whether casts are cached, and per
    # device type whether it is on and in which dtype (the nesting has no getter: a step up and back).
    depth = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return (depth, torch.is_autocast_cache_enabled(),
            tuple((d, torch.is_autocast_enabled(d), torch.get_autocast_dtype(d))
                  for d in _MMDIFF_AUTOCAST_DEVICES))

def _mmdiff_restore_autocast(state):
    # Puts back what a compiled call left changed: Dynamo lowers `with torch.autocast(...)` to an
    # enter and an exit node without try/finally, so a graph that raises between them leaves the
    # region entered (pytorch#195488; seen on 2.11.0: enabled, on 2.15.0: the nesting). Without
    # this every later run in the worker, eager's and TorchScript's too, ran under that autocast.
    depth, cache, devices = state
    now = _mmdiff_autocast_state()[0]
    for _ in range(now - depth):
        torch.autocast_decrement_nesting()
    for _ in range(depth - now):
        torch.autocast_increment_nesting()
    for d, enabled, dtype in devices:
        torch.set_autocast_dtype(d, dtype)
        torch.set_autocast_enabled(d, enabled)
    torch.set_autocast_cache_enabled(cache)
    if depth == 0:  # as leaving the outermost region does
        torch.clear_autocast_cache()

def _mmdiff_settings(settings):
    # A knob variant's torch._inductor.config settings, {name: value}, from the Python literal
    # text the path catalogue holds (src/ir/paths.cc: "{'freezing': True, ...}"); {} for none.
    import ast
    return ast.literal_eval(settings) if settings else {}


def _mmdiff_timed(run, knob="", no_grad=False):
    # torch.compile is lazy: a knob must be in force during the first call, which compiles (and
    # during the first backward, which compiles the backward graph). `knob`: the variant's
    # settings (_mmdiff_settings); `no_grad`: compile and run under torch.no_grad() (inference).
    import contextlib
    import torch._inductor.config
    import time
    from torch._dynamo.utils import compilation_time_metrics, counters
    settings = _mmdiff_settings(knob)
    patch = torch._inductor.config.patch(settings) if settings else contextlib.nullcontext()
    grad = torch.no_grad() if no_grad else contextlib.nullcontext()
    install_rewrite_observer()  # once per worker, before its first compile
    install_lowering_observer()
    take_rewrites()  # what an earlier call left (a rerun that failed before reading it)
    take_lowerings()
    graphs = counters["stats"]["unique_graphs"]
    before = dict(counters["inductor"])
    del _mmdiff_codes[:]
    compilation_time_metrics.clear()  # read only by compile-time reports; this call's alone
    autocast = _mmdiff_autocast_state()
    start = time.perf_counter()
    try:
        with patch, grad:
            result = ("ok", run())
    except Exception as e:
        why = no_template_choice(e, settings)  # knob_variants.py
        if why:
            result = ("unsupported", why)
        else:
            result = ("error",) + root_cause(e)
    call_s = time.perf_counter() - start
    leaked = _mmdiff_autocast_state() != autocast
    if leaked:
        _mmdiff_restore_autocast(autocast)
    delta = {k: v - before.get(k, 0) for k, v in counters["inductor"].items()}
    compiled = counters["stats"]["unique_graphs"] > graphs
    fn_state = _mmdiff_program["fns"].get(_mmdiff_program.get("key"))
    rewrites, lowerings = take_rewrites(), take_lowerings()
    for code in _mmdiff_codes:
        lowerings.extend(lowerings_in_code(code))
    if fn_state:  # compiles, and tries to compile
        fn_state[1] += compiled
        fn_state[2] += bool(compilation_time_metrics.get("_compile.compile_inner"))
        # A call that reuses the compiled function runs what those rewrites made of it: a finding
        # of such a call names them (oracles/root_cause.h, RootCauseFacts::fused); and the
        # lowerings its compiles chose.
        fn_state[3].update(rewrites)
        fn_state[4].update(lowerings)
        rewrites, lowerings = sorted(fn_state[3]), sorted(fn_state[4])
    info = (compiled, _mmdiff_program.get("reused", False),
            delta.get("fxgraph_cache_hit", 0),
            delta.get("fxgraph_cache_miss", 0),
            sorted(_mmdiff_internals(_mmdiff_codes, delta, rewrites, lowerings) +
                   ["leak:autocast"] * leaked),
            _mmdiff_phases(compilation_time_metrics, call_s))
    return result + (info,)

def _mmdiff_call(fn, args, knob="", no_grad=False):
    # What the call ran on (a model's call: its weights in their places) for _mmdiff_backward.
    _mmdiff_program["ran"] = args

    def run():
        outs = list(fn(*args))
        _mmdiff_program["ran"] = getattr(fn, "ran", None) or args
        return outs
    return _mmdiff_timed(run, knob, no_grad)

def _mmdiff_backward(outs, ws, leaf_indices, knob=""):
    # A training program's backward (src/ir/program.h): d loss / d out_i = w_i for the outputs with
    # a cotangent (None for the others), the gradients of the inputs at leaf_indices as the last
    # call ran on them (a model's parameters), zeros where unused. The compiled function's backward
    # graph compiles here, on its first call.
    leaves = [_mmdiff_program["ran"][i] for i in leaf_indices]

    def run():
        used = [(o, w) for o, w in zip(outs, ws) if w is not None]
        grads = [None] * len(leaves)
        if used:
            grads = torch.autograd.grad([o for o, _ in used], leaves, [w for _, w in used],
                                        allow_unused=True)
        return [g if g is not None else torch.zeros_like(a).detach() for g, a in zip(grads, leaves)]
    return _mmdiff_timed(run, knob)
