# The one root-cause rule for exceptions. The worker's helpers (src/backends/python) name a
# compiled path's error with it, and every repro.py carries this text (python_emitter.cc), so that
# the script names an error as mmdiff's run did. torch.compile and torch.export wrap the exception
# that failed (in BackendCompilerFailed, InternalTorchDynamoError, ...): the rule follows __cause__,
# then __context__, to the innermost one and names its first builtin base class, so that the same
# fault reads the same on every path and in every torch version. Uses nothing but builtins.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the worker's interpreter and in every repro.py, which
# must stay standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def root_cause(e):
    """(first builtin class, qualified type name, first message line) of e's root cause."""
    root = e
    while (root.__cause__ or root.__context__) is not None:
        root = root.__cause__ or root.__context__
    cls = next(c for c in type(root).__mro__ if c.__module__ == "builtins")
    lines = str(root).strip().splitlines() or [""]
    message = lines[0]
    # A TorchScript interpreter error opens with a banner and a TorchScript traceback; the
    # operator's own error is its last line ("RuntimeError: expected m1 and m2 ...").
    if message.startswith("The following operation failed in the TorchScript interpreter"):
        message = lines[-1].strip()
    return (cls.__name__, f"{type(root).__module__}.{type(root).__qualname__}", message)
