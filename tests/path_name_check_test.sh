#!/usr/bin/env bash
# scripts/path-name-check passes a tree whose path names are spelled in the catalogue only and
# catches a non-test file that spells one, one over its allowed count, a count left too high (or
# listed at all once none is left), and a listed file that does not exist
# (ctest PathNameCheck.CatchesAPathNameSpelledOutsideTheCatalogue).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/src/ir" "$TMP/src/cli" "$TMP/scripts" "$TMP/oracles" "$TMP/fuzz"
cp "$ROOT/src/ir/paths.h" "$ROOT/src/ir/paths.cc" "$TMP/src/ir/"
printf 'int Uses() { return paths::kInductor[0]; }\n' >"$TMP/src/cli/good.cc"
printf 'bool T(const std::string& p) { return p == "inductor"; }\n' >"$TMP/src/cli/good_test.cc"
: >"$TMP/scripts/path-names-to-move"
check() { set +e; out=$("$ROOT/scripts/path-name-check" "$TMP" 2>&1); rc=$?; set -e; }
check
if [ "$rc" != 0 ]; then
  echo "FAIL: a clean tree is flagged (exit $rc): $out" >&2
  exit 1
fi
printf 'bool IsAoti(const std::string& p) { return p == "aoti"; }\n' >"$TMP/src/cli/bad.cc"
check
if [ "$rc" != 1 ] || [[ "$out" != *'src/cli/bad.cc:1: "aoti"'* ]]; then
  echo "FAIL: a spelled path name was not caught (exit $rc): $out" >&2
  exit 1
fi
echo "src/cli/bad.cc 1" >"$TMP/scripts/path-names-to-move"
check
if [ "$rc" != 0 ]; then
  echo "FAIL: a listed spelling is flagged (exit $rc): $out" >&2
  exit 1
fi
echo "src/cli/bad.cc 2" >"$TMP/scripts/path-names-to-move"
check
if [ "$rc" != 1 ] || [[ "$out" != *"lower its count"* ]]; then
  echo "FAIL: a count left too high was not caught (exit $rc): $out" >&2
  exit 1
fi
printf 'bool IsAoti(const std::string& p) { return p == paths::kAoti; }\n' >"$TMP/src/cli/bad.cc"
echo "src/cli/bad.cc 1" >"$TMP/scripts/path-names-to-move"
check
if [ "$rc" != 1 ] || [[ "$out" != *"drop its line"* ]]; then
  echo "FAIL: a file whose spellings all moved is still listed, not caught (exit $rc): $out" >&2
  exit 1
fi
echo "src/cli/gone.cc 1" >"$TMP/scripts/path-names-to-move"
check
if [ "$rc" != 1 ] || [[ "$out" != *"src/cli/gone.cc: listed"* ]]; then
  echo "FAIL: a listed file that does not exist was not caught (exit $rc): $out" >&2
  exit 1
fi
echo "ok"
