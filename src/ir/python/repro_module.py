# How a program with weights (src/ir/program.h) runs as a model, in repro.py and in mmdiff's worker
# alike: module_call(compile) gives a callable of all of f's inputs that holds the weights in a
# Model (EmitModule in python_emitter.cc), made on its first call and compiled by compile(model)
# where given, and hands the other inputs to the model's forward. Runs in repro.py after Model,
# WEIGHTS, PARAMETERS and FORWARD; in the worker's __main__ before worker_helpers.py, which passes
# the namespace its program's source defined them in.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def same_weight(a, b):
    """Whether two weights are the same to a model: type, strides, device and every bit."""
    if (a.dtype, a.shape, a.stride(), a.device, a.requires_grad, type(a)) != (
            b.dtype, b.shape, b.stride(), b.device, b.requires_grad, type(b)):
        return False
    if a.device.type == "meta" or a.numel() == 0:
        return True

    def bits(t):
        return t.detach().contiguous().reshape(-1).view(torch.uint8)
    return torch.equal(bits(a), bits(b))


def module_call(compile=None, ns=None):
    """f as the model runs it: a callable of all of f's inputs. Its first call makes a Model (of
    ns, repro.py's own globals unless given) of the weights (WEIGHTS; those in PARAMETERS as
    torch.nn.Parameters), compiled by compile(model) where compile is given (torch.compile), and
    runs its forward on the other inputs (FORWARD); a later call with the same weights (every bit)
    runs the model it has, one with other weights makes a new one. It records in .ran the tensors
    it ran on, the model's weights in their places: the leaves of the gradients."""
    ns = globals() if ns is None else ns
    state = {}

    def call(*args):
        weights = [args[i] for i in ns["WEIGHTS"]]
        held = state.get("held")
        if held is None or not all(same_weight(a, b) for a, b in zip(held, weights)):
            made = [torch.nn.Parameter(w, requires_grad=w.requires_grad)
                    if i in ns["PARAMETERS"] else w for i, w in zip(ns["WEIGHTS"], weights)]
            model = ns["Model"](*made)
            state.update(held=weights, made=made, run=compile(model) if compile else model)
        ran = list(args)
        for i, w in zip(ns["WEIGHTS"], state["made"]):
            ran[i] = w
        call.ran = ran
        return state["run"](*[args[i] for i in ns["FORWARD"]])
    return call
