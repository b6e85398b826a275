# How repro.py reruns a path with the inputs its op must ignore replaced by zeros (an ignored_input
# finding): RECIPE's zeroed list grows by ZEROED for one outcome() (repro_outcome.py), whatever
# happens there. Runs in repro.py after RECIPE, outcome() and ZEROED (EmitRepro in
# python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def outcome_with_zeros(fn):
    global RECIPE
    given, RECIPE = RECIPE, dict(RECIPE, zeroed=sorted(set(RECIPE['zeroed']) | set(ZEROED)))
    try:
        return outcome(fn)
    finally:
        RECIPE = given
