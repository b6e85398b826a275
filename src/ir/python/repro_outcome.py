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


def gradients(args, outs):
    """loss.backward() for loss = sum over outputs i of (out_i * w_i).sum() (the floating outputs
    that require grad; w_i the recipe's cotangent): then each GRAD_INPUTS input's .grad, zeros where
    the loss does not reach it."""
    used = [(o, _mmdiff_cotangent(RECIPE, len(args) + i, o)) for i, o in enumerate(outs)
            if o.dtype.is_floating_point and o.requires_grad]
    if used:  # d loss / d out_i = w_i: the same as loss.backward(), without adding across devices
        torch.autograd.backward([o for o, _ in used], grad_tensors=[w for _, w in used])
    leaves = [args[i] for i in GRAD_INPUTS]
    return [a.grad if a.grad is not None else torch.zeros_like(a).detach() for a in leaves]


def outcome(fn, on_meta=False):
    """('ok', [(dtype, shape, device), ...], tensors) or ('error', root-cause class, message).
    A training program's tensors end with the gradients of GRAD_INPUTS; an error in the backward
    pass has a message that starts with "in backward: "."""
    args = inputs()
    if on_meta:  # the same inputs as leaves on meta (a .to("meta") of a leaf is not one)
        args = [a.detach().to("meta").requires_grad_(a.requires_grad) for a in args]
    try:
        outs = list(fn(*args))
    except Exception as e:
        return error_of(e)
    if GRAD_INPUTS:
        try:
            outs += gradients(args, outs)
        except Exception as e:
            name, message = error_of(e)[1:]
            return ("error", name, "in backward: " + message)
    return ("ok", [(str(t.dtype), tuple(t.shape), str(t.device)) for t in outs], outs)


def show(name, result):
    print(name, result[:3] if result[0] == "error" else result[:2])
