#!/usr/bin/env bash
# Configures the build folder $1 with Ninja (Debian's ninja-build, which
# setup.sh installs) and the CMake arguments that follow. Ninja's walk of an
# up-to-date tree takes a fraction of a second where Make's took seconds, and
# it runs novacat-gen's custom commands with restat, so a regenerated spec
# recompiles only the files whose text changed. A folder configured earlier
# with another generator has its cache and CMakeFiles/ removed first (CMake
# refuses to switch generators in place); nothing else in it is touched.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: scripts/configure.sh BUILD_DIR [CMAKE_ARGS...]" >&2
  exit 2
fi
dir=$1
shift
cache=$dir/CMakeCache.txt
if [ -f "$cache" ] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
  was=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
  echo "configure: $dir was configured for '${was:-another generator}'; configuring it afresh for Ninja"
  rm -rf "$cache" "$dir/CMakeFiles"
fi
exec cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
