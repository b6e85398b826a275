# with_progress LABEL LOG COMMAND...: runs COMMAND with its output in LOG and, while it runs, prints
# a line to stderr at least every 30 s: how long it has run and where it is (a build's percentage
# and targets done, else the log's last line), so that a long set-up step never looks like a hang.
# Returns COMMAND's exit status. Sourced by scripts/setup; the caller defines log().
# MMDIFF_PROGRESS_S sets the interval (seconds).
progress_of() {
  local logf=$1 pct built last
  pct=$(grep -o '^\[ *[0-9]*%\]' "$logf" 2>/dev/null | tail -1 | tr -d '[ ]')
  if [ -n "$pct" ]; then
    built=$(grep -c '^\[ *[0-9]*%\] Built target' "$logf" 2>/dev/null || true)
    echo "$pct, ${built:-0} targets built"
    return
  fi
  # The last line with text, as printable ASCII and at most 100 characters.
  last=$(grep -v '^[[:space:]]*$' "$logf" 2>/dev/null | tail -1 | LC_ALL=C tr -cd '[:print:]' | cut -c1-100)
  echo "${last:-no output yet}"
}

with_progress() {
  local label=$1 logf=$2 every=${MMDIFF_PROGRESS_S:-30} pid start waited
  shift 2
  "$@" >"$logf" 2>&1 &
  pid=$!
  start=$SECONDS
  while :; do
    waited=0
    while [ "$waited" -lt "$every" ] && kill -0 "$pid" 2>/dev/null; do
      sleep 1
      waited=$((waited + 1))
    done
    kill -0 "$pid" 2>/dev/null || break
    log "$label: $((SECONDS - start)) s, $(progress_of "$logf")"
  done
  wait "$pid"
}
