#!/usr/bin/env bash
# scripts/py-check catches a Python file that does not compile and passes one that does, and writes
# no compiled file next to either (ctest PythonCheck.CatchesAFileThatDoesNotCompile).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'def f(x):\n    return x + 1\n' >"$TMP/good.py"
printf 'def f(x):\n    return (x + 1\n' >"$TMP/bad.py"
if ! "$ROOT/scripts/py-check" "$TMP/good.py"; then
  echo "FAIL: a file that compiles is flagged" >&2
  exit 1
fi
set +e
out=$("$ROOT/scripts/py-check" "$TMP/good.py" "$TMP/bad.py")
rc=$?
set -e
if [ "$rc" != 1 ] || [[ "$out" != *"does not compile: $TMP/bad.py"* ]] || [[ "$out" == *"good.py"* ]]; then
  echo "FAIL: the file that does not compile was not caught (exit $rc): $out" >&2
  exit 1
fi
if [ -e "$TMP/__pycache__" ]; then
  echo "FAIL: py-check wrote $TMP/__pycache__" >&2
  exit 1
fi
echo "ok: $out"
