#!/usr/bin/env bash
# scripts/tidy-check catches a finding of .clang-tidy's checks (a use after move) and passes the
# same file without it; a clean file is remembered until it or a header it includes changes, a
# finding never is (ctest TidyCheck.CatchesAFinding).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo '#define KEPT kept' >"$TMP/inc.h"
cat >"$TMP/bad.cc" <<'CC'
#include "inc.h"
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
export MMDIFF_TIDY_DB=$TMP MMDIFF_TIDY_CACHE=$TMP/cache
expect_clean() {  # expect_clean WHAT: good.cc is clean, and checked or remembered as WHAT says
  local out
  if ! out=$("$ROOT/scripts/tidy-check" "$TMP/good.cc"); then
    echo "FAIL: a clean file is flagged: $out" >&2
    exit 1
  fi
  if [[ "$out" != *"$1"* ]]; then
    echo "FAIL: expected '$1': $out" >&2
    exit 1
  fi
}
expect_clean "(1 checked, 0 remembered"
expect_clean "(0 checked, 1 remembered"
echo '#define KEPT kept  // a header the file includes changed' >"$TMP/inc.h"
expect_clean "(1 checked, 0 remembered"
set +e
out=$("$ROOT/scripts/tidy-check" "$TMP/good.cc" "$TMP/bad.cc" 2>&1)
rc=$?
set -e
if [ "$rc" != 1 ] || [[ "$out" != *"bad.cc:6"*"bugprone-use-after-move"* ]] || [[ "$out" == *"good.cc:"* ]]; then
  echo "FAIL: the use after move was not caught (exit $rc): $out" >&2
  exit 1
fi
out=$("$ROOT/scripts/tidy-check" "$TMP/bad.cc" 2>&1) && rc=0 || rc=$?
if [ "$rc" != 1 ]; then
  echo "FAIL: a file with a finding passed on the second run (exit $rc): $out" >&2
  exit 1
fi
echo "ok: caught the use after move, twice; remembered the clean file until its header changed"
