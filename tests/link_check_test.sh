#!/usr/bin/env bash
# scripts/link-check passes a file whose relative links resolve and catches one that does not
# (ctest LinkCheck.CatchesABrokenLink).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/docs"
printf 'x\n' >"$TMP/docs/there.md"
printf 'See [there](docs/there.md#a), [web](https://example.com) and [top](#top).\n' >"$TMP/good.md"
printf 'Fine: [there](docs/there.md)\nBroken: [gone](docs/gone.md)\n' >"$TMP/bad.md"
if ! "$ROOT/scripts/link-check" "$TMP/good.md" >/dev/null; then
  echo "FAIL: links that resolve are flagged" >&2
  exit 1
fi
set +e
out=$("$ROOT/scripts/link-check" "$TMP/good.md" "$TMP/bad.md" 2>&1)
rc=$?
set -e
if [ "$rc" != 1 ] || [[ "$out" != *"$TMP/bad.md:2: docs/gone.md"* ]] || [[ "$out" == *"good.md"* ]]; then
  echo "FAIL: the broken link was not caught (exit $rc): $out" >&2
  exit 1
fi
echo "ok: $out"
