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
    """fn exported for args, compiled and loaded, as mmdiff's aoti path does."""
    import os
    import tempfile

    class Program(torch.nn.Module):
        def forward(self, *xs):
            return fn(*xs)

    with torch.no_grad():
        exported = torch.export.export(Program(), tuple(args))
        path = torch._inductor.aoti_compile_and_package(
            exported, package_path=os.path.join(tempfile.mkdtemp(), "program.pt2"))
    return torch._inductor.aoti_load_package(path)
