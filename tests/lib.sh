# Shared helpers of the shell tests: source it, record failures with fail or
# expect_eq, and end with finish. Each check reports and the script goes on,
# so one run shows every failure.
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_eq() {  # expect_eq NAME ACTUAL EXPECTED: a diff of the two on failure
  if [ "$2" != "$3" ]; then
    fail "$1"
    diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") | sed 's/^/    /'
  fi
}
finish() {  # finish SUMMARY: exit 1 with the count of failures, or print SUMMARY
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "$1"
}
