#!/usr/bin/env bash
# novacat-gen's allocator (generator/support/allocator.h): mimalloc, with its
# generation defaults (2 MiB pages, committed as reserved) in force from the
# process's start, and MIMALLOC_* in the environment still winning. Read
# from mimalloc's own report of its options (MIMALLOC_VERBOSE).
# Usage: allocator_test.sh NOVACAT_GEN
set -uo pipefail
source "$(dirname "$0")/lib.sh"
gen=$1

options() {  # the options mimalloc reports, for the environment given
  env "$@" MIMALLOC_VERBOSE=1 "$gen" --version 2>&1 >/dev/null |
    grep -E "^mimalloc: option '(large_os_pages|eager_commit_delay)'"
}

expect_eq "defaults" "$(options)" \
  "mimalloc: option 'large_os_pages': 1
mimalloc: option 'eager_commit_delay': 0"
expect_eq "the environment wins" \
  "$(options MIMALLOC_LARGE_OS_PAGES=0 MIMALLOC_EAGER_COMMIT_DELAY=2)" \
  "mimalloc: option 'large_os_pages': 0
mimalloc: option 'eager_commit_delay': 2"
expect_eq "--version still answers" "$("$gen" --version | head -c 11)" \
  "novacat-gen"
finish "allocator: mimalloc with the generation defaults"
