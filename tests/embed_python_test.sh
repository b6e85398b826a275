#!/usr/bin/env bash
# cmake/embed_python.cmake embeds the text below a file's marker line byte for byte, whatever it
# holds (quotes, backslashes, a raw string's end, non-ASCII, CRLF, no final newline), as a
# NUL-terminated constant; and fails, naming the file and what is wrong, on a file without the
# marker, with it twice, with it inside a line, or with a NUL byte (ctest
# EmbedPython.EmbedsAnyTextAndRejectsBadFiles).
#   CMAKE=<cmake> CXX=<c++ compiler> tests/embed_python_test.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMAKE=${CMAKE:-cmake}
CXX=${CXX:-c++}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MARKER='# ---- embedded from here on (cmake/embed_python.cmake) ----'
embed() {  # embed FILE.py: writes FILE.h, defining kTestPy
  "$CMAKE" -DINPUT="$1" -DOUTPUT="${1%.py}.h" -DNAME=kTestPy -P "$ROOT/cmake/embed_python.cmake"
}

# A good file: what is above the marker is left out, everything below it is kept.
printf '# for readers only\nimport os\n\n%s\n' "$MARKER" >"$TMP/good.py"
printf 'x = ")\\"" + r"\\n" + """\\x00"""  # )PY" )" ??/ \\\n' >"$TMP/expected"
printf 's = "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x99\x82"\r\nR"delim(\r\n\tpass\n#include <x>\nlast line without a newline' >>"$TMP/expected"
cat "$TMP/expected" >>"$TMP/good.py"
embed "$TMP/good.py"
cat >"$TMP/print.cc" <<'CC'
#include <cstdio>

#include "good.h"

int main() {
  constexpr std::string_view text = mmdiff::embedded::kTestPy;
  std::fwrite(text.data(), 1, text.size(), stdout);
  return text.data()[text.size()] == '\0' ? 0 : 1;  // NUL-terminated, for PyRun_String
}
CC
"$CXX" -std=c++20 -Wall -Wextra -Werror -I"$TMP" "$TMP/print.cc" -o "$TMP/print"
"$TMP/print" >"$TMP/got"
if ! cmp "$TMP/expected" "$TMP/got"; then
  echo "FAIL: the embedded text differs from the file's text below its marker" >&2
  exit 1
fi

# Bad files: the build fails with a message that names the file and the fault.
fails() {  # fails NAME EXPECTED-MESSAGE-PART
  set +e
  out=$(embed "$TMP/$1.py" 2>&1)
  rc=$?
  set -e
  out=$(printf '%s' "$out" | tr -s '\n ' '  ')  # CMake wraps its messages
  if [ "$rc" = 0 ] || [[ "$out" != *"$TMP/$1.py"* ]] || [[ "$out" != *"$2"* ]]; then
    echo "FAIL: $1.py was embedded or its message lacks '$2' (exit $rc): $out" >&2
    exit 1
  fi
  if [ -e "$TMP/$1.h" ]; then
    echo "FAIL: $1.py left a header" >&2
    exit 1
  fi
}
printf 'def f():\n    pass\n' >"$TMP/no_marker.py"
fails no_marker "no line '$MARKER'"
printf '%s\nx = 1\n%s\n' "$MARKER" "$MARKER" >"$TMP/twice.py"
fails twice "there twice"
printf 'x = 1  %s\ny = 2\n' "$MARKER" >"$TMP/inside.py"
fails inside "must be a line of its own"
printf '%s\nx = "\0"\n' "$MARKER" >"$TMP/nul.py"
fails nul "a NUL byte at offset 66"
echo "ok: the text is embedded byte for byte; the four bad files fail the build"
