# The Python half of the aoti path (aoti_export.cc): export(source, args) exports the program's
# function f, wrapped in a torch.nn.Module (a program with weights: its Model, which holds them,
# exported for the other inputs: AOTInductor packages the weights as its constants, and the
# package runs on the forward's inputs alone), and package(exported, path) compiles it into an
# AOTInductor package, each under torch.no_grad() as AOTInductor's documentation does for
# inference; each gives ("ok", value) or ("error", class, qualified type, message), the root cause
# as root_cause() names it. Runs in the worker's embedded interpreter, in a namespace of its own,
# after src/ir/python/root_cause.py (Helpers in aoti_export.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file.

# ---- embedded from here on (cmake/embed_python.cmake) ----
import torch
import torch._inductor

def export(source, args):
    ns = {"torch": torch}
    exec(source, ns)
    f = ns["f"]

    class Program(torch.nn.Module):
        def forward(self, *xs):
            return f(*xs)

    module = Program()
    weights = ns.get("WEIGHTS") or []
    if weights:
        module = ns["Model"](*[torch.nn.Parameter(args[i], requires_grad=False)
                               if i in ns["PARAMETERS"] else args[i] for i in weights])
        args = [args[i] for i in ns["FORWARD"]]
    try:
        with torch.no_grad():
            return ("ok", torch.export.export(module, tuple(args)))
    except Exception as e:
        return ("error",) + root_cause(e)

def package(exported, path):
    try:
        with torch.no_grad():
            return ("ok", torch._inductor.aoti_compile_and_package(exported, package_path=path))
    except Exception as e:
        return ("error",) + root_cause(e)
