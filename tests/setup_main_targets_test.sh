#!/usr/bin/env bash
# `scripts/setup --main` (what `scripts/fuzz` runs) builds the campaign's targets and what they
# link, no test binary: the targets a from-scratch build of its target list would link, read from
# make's dry run of this build tree (-n -B: every command, none run), hold mmdiff and mmdiff-worker
# and no unit test, e2e test, fuzzer, benchmark or test stand-in, while the full build's list
# holds them (the check sees a test binary when one is built)
# (ctest SetupMain.BuildsNoTestBinary). Usage: setup_main_targets_test.sh BUILD_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$1
# The goal --main builds, then the targets it stands for.
mapfile -t LISTED < <("$ROOT/scripts/setup" --print-main-targets)
GOAL=${LISTED[0]}
MAIN=("${LISTED[@]:1}")
# The targets a dry run of `make ARGS` would link (CMakeFiles/<target>.dir/link.txt), sorted.
linked() {
  make -C "$BUILD" -n -B "$@" 2>/dev/null | grep -o 'CMakeFiles/[^ /]*\.dir/link\.txt' |
    sed 's|CMakeFiles/||; s|\.dir/link\.txt||' | sort -u
}
TESTISH='(_test|_fuzzer|_bench)$|^relay_worker$'
main=$(linked "$GOAL")
echo "scripts/setup --main builds $GOAL: ${MAIN[*]}; linking: $(echo "$main" | tr '\n' ' ')"
for t in "${MAIN[@]}"; do
  grep -qx -- "$t" <<<"$main" || { echo "FAIL: --main does not link $t" >&2; exit 1; }
done
if grep -E "$TESTISH" <<<"$main"; then
  echo "FAIL: scripts/setup --main builds the test binaries above" >&2
  exit 1
fi
all=$(linked all)
if ! grep -qE "$TESTISH" <<<"$all"; then
  echo "FAIL: the full build links no test binary: the check cannot see one" >&2
  exit 1
fi
echo "ok: $(grep -cE "$TESTISH" <<<"$all") test binaries in the full build, none in --main's"
