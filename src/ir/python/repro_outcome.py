# repro.py's runner: outcome(fn) runs fn on fresh inputs and gives what mmdiff compares (the
# outcome, the root cause's builtin class and message, the result types); a script that cannot
# build its inputs exits REPRODUCER_FAILED rather than pass for the finding or for its absence.
# Runs in repro.py after its imports (sys), root_cause() (root_cause.py), make_inputs() and
# REPRODUCER_FAILED (kReproFailedExitCode; EmitRepro in python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def error_of(e):
    """('error', root-cause class, message): the root cause, as torch.compile wraps exceptions."""
    name, _, message = root_cause(e)
    return ("error", name, message)


def reproducer_failed(what, error):
    print(f"REPRODUCER FAILED: {what}: {error[1]}: {error[2]}")
    print("Nothing was compared: this run says nothing about the finding.")
    sys.exit(REPRODUCER_FAILED)


def inputs():
    try:
        return make_inputs()
    except Exception as e:  # e.g. cuda inputs without a GPU: an error of the script, not of f
        reproducer_failed("the inputs cannot be built here", error_of(e))


def outcome(fn):
    """('ok', [(dtype, shape, device), ...], tensors) or ('error', root-cause class, message)."""
    args = inputs()
    try:
        outs = fn(*args)
    except Exception as e:
        return error_of(e)
    return ("ok", [(str(t.dtype), tuple(t.shape), str(t.device)) for t in outs], outs)


def show(name, result):
    print(name, result[:3] if result[0] == "error" else result[:2])
