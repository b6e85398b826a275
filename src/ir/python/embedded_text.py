# For the Python tests (*_test.py here and in src/backends/python): the text the build embeds from
# one of mmdiff's Python sources, cut below its marker line as cmake/embed_python.cmake cuts it, and
# namespaces that run such texts one after the other, as repro.py and the worker do. Nothing
# embeds or imports this file but the tests.
import os

MARKER = "# ---- embedded from here on (cmake/embed_python.cmake) ----"
HERE = os.path.dirname(os.path.abspath(__file__))
FOLDERS = [HERE, os.path.join(HERE, "..", "..", "backends", "python")]


def source_path(name):
    """The path of the source `name` ("root_cause.py"), in src/ir/python or src/backends/python."""
    for folder in FOLDERS:
        path = os.path.normpath(os.path.join(folder, name))
        if os.path.exists(path):
            return path
    raise FileNotFoundError(name)


def embedded_text(name):
    """The text of the source `name` below its marker line: what the build embeds."""
    with open(source_path(name), "rb") as f:
        lines = f.read().decode("utf-8").splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == MARKER]
    if len(at) != 1:
        raise ValueError(f"{name}: {len(at)} marker lines, not one")
    return "".join(lines[at[0] + 1:])


def run_in(ns, *names):
    """Runs the embedded text of each of `names` in the namespace `ns` (a dict), in that order, as
    repro.py and the worker's interpreter run them in theirs; returns ns."""
    for name in names:
        exec(compile(embedded_text(name), source_path(name), "exec"), ns)
    return ns


def run(*names, **given):
    """A new namespace holding `given`, in which the embedded text of each of `names` ran."""
    return run_in({"__name__": "__main__", **given}, *names)
