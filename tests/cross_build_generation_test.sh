#!/usr/bin/env bash
# The same seed must give the same program, inputs and mutations whichever compiler built mmdiff:
# libFuzzer artifacts come from the clang-built program fuzzer and are replayed by the main
# (g++) build, and a campaign's finding must regenerate anywhere. C++ leaves the order in which a
# call's arguments are evaluated open (g++ and clang differ), so two draws from the generator's
# random source in one call's arguments make programs depend on the compiler. ctest
# CrossBuild.SameProgramsAsTheMainBuild in build-asan (clang-19) compares with build/ (g++).
#   tests/cross_build_generation_test.sh THIS_MMDIFF OTHER_MMDIFF
# Exits 77 (skipped) when OTHER_MMDIFF is not built.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
this=$1 other=$2
if [ ! -x "$other" ]; then
  echo "skipped: no $other to compare with (scripts/setup builds it)"
  exit 77
fi
export ASAN_OPTIONS=detect_leaks=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo '{"swarm": true}' >"$TMP/swarm.json"
same() {  # what, command words after the binary...
  local what=$1
  shift
  "$this" "$@" >"$TMP/this" 2>&1 || true
  "$other" "$@" >"$TMP/other" 2>&1 || true
  if ! cmp -s "$TMP/this" "$TMP/other"; then
    echo "FAIL: $what differs between $this and $other (mmdiff $*):" >&2
    diff "$TMP/this" "$TMP/other" | head -20 >&2
    exit 1
  fi
}
same "statistics of 3,000 default programs" gen --stats 3000 --json
same "statistics of 3,000 swarm programs" gen --stats 3000 --json --policy "$TMP/swarm.json"
for seed in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  same "the case and input values of seed $seed" gen --seed "$seed" --case --values
done
for seed in $(seq 1 40); do
  same "mutation $seed of op-matmul" mutate --seed "$seed" "$ROOT/corpus/seeds/op-matmul.json"
done
echo "ok: the same programs, inputs and mutations as $other"
