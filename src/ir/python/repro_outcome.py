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


def inputs(make=None):
    """The case's inputs (make_inputs), or those `make` builds (a call before the case's)."""
    try:
        return (make or make_inputs)()
    except Exception as e:  # e.g. cuda inputs without a GPU: an error of the script, not of f
        reproducer_failed("the inputs cannot be built here", error_of(e))


def gradients(args, outs, recipe=None):
    """loss.backward() for loss = sum over outputs i of (out_i * w_i).sum() (the floating outputs
    that require grad; w_i the cotangent of the recipe, RECIPE unless given): then each
    GRAD_INPUTS input's .grad, zeros where the loss does not reach it."""
    used = [(o, _mmdiff_cotangent(recipe or RECIPE, len(args) + i, o)) for i, o in enumerate(outs)
            if o.dtype.is_floating_point and o.requires_grad]
    leaves = [args[i] for i in GRAD_INPUTS]
    for a in leaves:  # a model's parameters live on from one call to the next
        a.grad = None
    if used:  # d loss / d out_i = w_i: the same as loss.backward(), without adding across devices
        torch.autograd.backward([o for o, _ in used], grad_tensors=[w for _, w in used])
    return [a.grad if a.grad is not None else torch.zeros_like(a).detach() for a in leaves]


def outcome(fn, on_meta=False, make=None, recipe=None):
    """('ok', [(dtype, shape, device), ...], tensors) or ('error', root-cause class, message), on
    the case's inputs or on those `make` builds with `recipe` (a call before the case's).
    A training program's tensors end with the gradients of GRAD_INPUTS; an error in the backward
    pass has a message that starts with "in backward: "."""
    args = inputs(make)
    if on_meta:  # the same inputs as leaves on meta (a .to("meta") of a leaf is not one)
        args = [a.detach().to("meta").requires_grad_(a.requires_grad) for a in args]
    try:
        outs = list(fn(*args))
    except Exception as e:
        return error_of(e)
    # A model's call (module_call) ran on the weights its model holds: their gradients are there.
    args = getattr(fn, "ran", None) or args
    if GRAD_INPUTS:
        try:
            outs += gradients(args, outs, recipe)
        except Exception as e:
            name, message = error_of(e)[1:]
            return ("error", name, "in backward: " + message)
    # The device's type, as the expected results name it: a cuda tensor is on "cuda:0".
    return ("ok", [(str(t.dtype), tuple(t.shape), t.device.type) for t in outs], outs)


def show(name, result):
    print(name, result[:3] if result[0] == "error" else result[:2])


def same_outcome(a, b):
    """Whether two outcomes agree on what is compared: ok or error, the error's class and whether
    it came in the backward pass (a forward that returns and a backward that raises is not a
    forward that raises), or the result types."""
    def phase(o):
        return o[0] == "error" and o[2].startswith("in backward: ")
    return a[:2] == b[:2] and phase(a) == phase(b)


def conclude(attempt, attempts):
    """Runs attempt() (the script's check, which fails an assertion while the finding is there) up
    to `attempts` times and stops at the first that shows the finding (exit 1): a finding that
    shows only some of the time (uninitialised memory, a race) is not taken for gone after one
    run. Returns when none showed it: the finding is gone (exit 0)."""
    for k in range(1, attempts + 1):
        try:
            attempt()
        except AssertionError:
            if attempts > 1:
                print(f"attempt {k} of {attempts}: the finding shows")
            raise
        if k < attempts:
            print(f"attempt {k} of {attempts}: no difference; trying again")
