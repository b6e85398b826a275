# How repro.py compares eager on meta tensors with eager on cpu (a meta finding): meta must predict
# the outcome, the error class, and the result dtypes and shapes, not the devices nor the values.
# Runs in repro.py after outcome() (repro_outcome.py), where it checks a meta finding (EmitRepro
# in python_emitter.cc).
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. The text runs in the namespace of a generated repro.py, which must stay
# standalone: it imports nothing of mmdiff's.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def predicted(result):  # what meta must predict: the outcome, error class, dtypes and shapes
    return result[:2] if result[0] == "error" else ("ok", [t[:2] for t in result[1]])
