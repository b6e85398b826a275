#!/usr/bin/env bash
# scripts/format-check catches a misformatted file and passes a formatted one (ctest
# FormatCheck.CatchesAMisformattedFile).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'namespace mmdiff {\nint  Twice( int x ){return 2*x;}\n}\n' >"$TMP/bad.cc"
cp "$TMP/bad.cc" "$TMP/good.cc"
"${MMDIFF_CLANG_FORMAT:-clang-format-19}" --style=file:"$ROOT/.clang-format" -i "$TMP/good.cc"
if ! "$ROOT/scripts/format-check" "$TMP/good.cc"; then
  echo "FAIL: a formatted file is flagged" >&2
  exit 1
fi
set +e
out=$("$ROOT/scripts/format-check" "$TMP/good.cc" "$TMP/bad.cc")
rc=$?
set -e
if [ "$rc" != 1 ] || [[ "$out" != *"misformatted: $TMP/bad.cc"* ]] || [[ "$out" == *"good.cc"* ]]; then
  echo "FAIL: the misformatted file was not caught (exit $rc): $out" >&2
  exit 1
fi
echo "ok: $out"
