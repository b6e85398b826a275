# How repro.py makes the calls before the finding's (src/ir/call_sequence.h): in mmdiff's run the
# compiled function was called on other inputs first (its first compile; new sizes, which make
# Dynamo recompile with symbolic sizes), and the finding shows only after them. calls_before(fn)
# calls fn on each of them in order and prints what each gave, compares nothing. Runs in repro.py
# (and in the runner of `mmdiff releases`) after outcome() (repro_outcome.py), CALLS_BEFORE (a list
# of (recipe, input shapes)) and make_inputs_before(recipe, shapes) (EmitCallsBefore in
# python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def calls_before(fn, quiet=False):
    for i, (recipe, shapes) in enumerate(CALLS_BEFORE):
        def make(recipe=recipe, shapes=shapes):
            return make_inputs_before(recipe, shapes)
        result = outcome(fn, make=make, recipe=recipe)
        if not quiet:
            show(f"call {i + 1} before:", result)
