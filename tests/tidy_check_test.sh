#!/usr/bin/env bash
# scripts/tidy-check catches a finding of .clang-tidy's checks (a use after move) and passes the
# same file without it (ctest TidyCheck.CatchesAFinding).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/bad.cc" <<'CC'
#include <string>
#include <utility>
std::string Twice(std::string s) {
  std::string kept = std::move(s);
  return kept + s;
}
CC
sed 's/return kept + s;/return kept + kept;/' "$TMP/bad.cc" >"$TMP/good.cc"
printf '[{"directory": "%s", "file": "bad.cc", "command": "clang++-19 -std=c++20 -c bad.cc"},
 {"directory": "%s", "file": "good.cc", "command": "clang++-19 -std=c++20 -c good.cc"}]\n' \
  "$TMP" "$TMP" >"$TMP/compile_commands.json"
export MMDIFF_TIDY_DB=$TMP
if ! "$ROOT/scripts/tidy-check" "$TMP/good.cc"; then
  echo "FAIL: a clean file is flagged" >&2
  exit 1
fi
set +e
out=$("$ROOT/scripts/tidy-check" "$TMP/good.cc" "$TMP/bad.cc" 2>&1)
rc=$?
set -e
if [ "$rc" != 1 ] || [[ "$out" != *"bad.cc:5"*"bugprone-use-after-move"* ]] || [[ "$out" == *"good.cc:"* ]]; then
  echo "FAIL: the use after move was not caught (exit $rc): $out" >&2
  exit 1
fi
echo "ok: caught the use after move"
