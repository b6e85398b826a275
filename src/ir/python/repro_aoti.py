# How repro.py builds the aoti path: f wrapped in a torch.nn.Module, exported, compiled into a
# package and loaded, as mmdiff's aoti path does (src/backends/python/aoti_helpers.py exports and
# packages under torch.no_grad(); aoti_backend.cc loads the package from C++). Runs in repro.py
# after its imports (torch), where it compares aoti with eager (ReproCompiledFor in
# python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def aoti(fn, args):
    """fn exported for args, compiled and loaded, as mmdiff's aoti path does; for a program with
    weights, its Model (which holds them) exported for the other inputs, and a callable of all of
    f's inputs that hands the loaded package the forward's."""
    import os
    import tempfile

    class Program(torch.nn.Module):
        def forward(self, *xs):
            return fn(*xs)

    module, weights = Program(), globals().get("WEIGHTS") or []
    if weights:
        module = Model(*[torch.nn.Parameter(args[i], requires_grad=False)
                         if i in PARAMETERS else args[i] for i in weights])
        args = [args[i] for i in FORWARD]
    with torch.no_grad():
        exported = torch.export.export(module, tuple(args))
        path = torch._inductor.aoti_compile_and_package(
            exported, package_path=os.path.join(tempfile.mkdtemp(), "program.pt2"))
    loaded = torch._inductor.aoti_load_package(path)
    if not weights:
        return loaded
    return lambda *xs: loaded(*[xs[i] for i in FORWARD])
