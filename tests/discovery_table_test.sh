#!/usr/bin/env bash
# The discovery benchmark's reader (scripts/discovery_table.py) on saved campaign folders
# (tests/data/discovery): each listed bug's time to first find per campaign, how many found it and
# the median, a yield-scheduled campaign's arms; and a bad folder, summary or bug list is an
# error (exit 2) that says why, as is a bad count given to scripts/bench-discovery (ctest
# DiscoveryTable.ReadsSavedCampaigns).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${MMDIFF_CHECK_PYTHON:-python3}
READER="$ROOT/scripts/discovery_table.py"
DATA="$ROOT/tests/data/discovery"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
squeeze() { tr -s ' '; }

out=$("$PY" -B "$READER" "$DATA/steered" "$DATA/unsteered" | squeeze)
echo "$out"
# Found by the first campaign only, at its earlier bucket of either entry.
grep -qx 'pytorch#177630 mixed dtypes: a float16 @ float32 product accepted 191 s - 1/2 191 s' \
  <<<"$out" || fail "pytorch#177630's row"
# Found by both, once as a known bucket and once as a fix's miss (unclaimed): the median of 50, 150.
grep -qx 'pytorch#185337 casts: an explicit round trip dropped 50 s 150 s 2/2 100 s' <<<"$out" \
  || fail "pytorch#185337's row"
grep -qx 'pytorch#174049 attention: a fusion drops the softmax scale - - 0/2 -' <<<"$out" \
  || fail "a bug neither found"
[ "$(grep -c '^pytorch#' <<<"$out")" = 10 ] || fail "one row per listed bug"
grep -qx 'steered yield 2024 400 1800 s 0.22 4 9' <<<"$out" || fail "the steered campaign's row"
grep -qx 'unsteered none 2025 1200 1801 s 0.67 1 5' <<<"$out" || fail "the unsteered campaign's row"
grep -qx 'mixed_dtypes 300 2880 80.0 % 3.0 0.0' <<<"$out" || fail "the yield scheduler's arms"

# Refused with the reason, exit 2: ...
refused() {  # refused WHAT EXPECTED-FRAGMENT ARGS...
  local what=$1 fragment=$2
  shift 2
  set +e
  err=$("$PY" -B "$READER" "$@" 2>&1 >/dev/null)
  rc=$?
  set -e
  [ "$rc" = 2 ] && [[ "$err" == *"$fragment"* ]] || fail "$what: exit $rc, $err"
}
refused "no folder" "give the campaign folders"
refused "a folder without a summary" "summary.json" "$TMP"
mkdir -p "$TMP/bad"
echo '{"format": "mmdiff.fuzz-summary", "buckets": [{"known": {"source": "x.json"}}]}' \
  >"$TMP/bad/summary.json"
refused "a bucket without its time" "first_found_s" "$TMP/bad"
echo '[1, 2' >"$TMP/bad/summary.json"
refused "a summary that is not JSON" "$TMP/bad/summary.json" "$TMP/bad"
# ... a bug list whose entry does not expect the bug on its release, or names a path.
printf '{"format": "mmdiff.discovery-bugs", "torch": "2.11.0", "bugs": [{"bug": "x", "entries": ["%s"]}]}' \
  eager-mm-bfloat16-amx-nan.json >"$TMP/bugs.json"
refused "an entry of another release" "does not expect x on torch 2.11.0" --bugs "$TMP/bugs.json" \
  "$DATA/steered"
printf '{"format": "mmdiff.discovery-bugs", "torch": "2.11.0", "bugs": [{"bug": "x", "entries": ["../../../etc/passwd"]}]}' \
  >"$TMP/bugs.json"
refused "a path for an entry" "must name itself and its catalogue entries' files" \
  --bugs "$TMP/bugs.json" "$DATA/steered"
refused "an option without its value" "--bugs needs a value" "$DATA/steered" --bugs
# The benchmark refuses a count that is not a positive whole number before it sets anything up.
for bad in "--side-by-side 0" "--jobs x" "--time -5"; do
  set +e
  # shellcheck disable=SC2086
  err=$(bash "$ROOT/scripts/bench-discovery" $bad 2>&1)
  rc=$?
  set -e
  [ "$rc" = 2 ] && [[ "$err" == *"not a positive whole number"* ]] \
    || fail "bench-discovery $bad: exit $rc, $err"
done
echo ok
