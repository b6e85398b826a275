# What the knob variants (src/ir/paths.cc: inductor's compile settings) share between mmdiff's
# worker (src/backends/python/worker_helpers.py) and the runner `mmdiff releases` runs in other
# releases (release_runner.py), so that both say alike when a variant cannot compile a program.
#
# The build embeds the text below the marker line (cmake/embed_python.cmake); what is above it is
# for readers of this file. It uses nothing but builtins.

# ---- embedded from here on (cmake/embed_python.cmake) ----
def no_template_choice(e, settings):
    """Why the variant cannot compile the program, where `e` is max-autotune, restricted to the C++
    templates (max_autotune_gemm_backends in `settings`), finding no choice for a product no
    template takes (a second operand that is not a frozen weight, a dtype the templates lack):
    Inductor raises NoValidChoicesError, maybe wrapped. That is the setting, not a bug: the path is
    unsupported for this program, with this message. "" for any other error."""
    if "max_autotune_gemm_backends" not in settings:
        return ""
    seen = set()
    cause = e
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if type(cause).__name__ == "NoValidChoicesError":
            return ("max_autotune_gemm_backends='CPP' leaves no choice for a product of this "
                    "program: no C++ GEMM template takes it (" +
                    (str(e).strip().splitlines() or [""])[0][:200] + ")")
        cause = cause.__cause__ or cause.__context__
    return ""
