# Shared by the benchmark scripts (bench.sh, bench_loop.sh): source it.

# Runs "$@" with its output hidden (Google Benchmark's context, the specs'
# warnings, a build's lines), shown when it fails, with the script's name.
quietly() {
  local log status=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { cat "$log" >&2; echo "${0##*/}: failed: $*" >&2; }
  rm -f "$log"
  return "$status"
}
