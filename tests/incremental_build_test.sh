#!/usr/bin/env bash
# novacat_add_workflow in a build system's incremental builds
# (cmake/NovacatWorkflow.cmake), with Make and, when it is installed, Ninja:
# a project of one workflow, its generator a copy of novacat-gen (so that it
# can be "rebuilt" by touching it), builds its generation target
# (novacat_generate_<workflow>) over and over. novacat-gen runs exactly when
# the spec or the generator changed or a generated file is missing, and a
# build after it runs nothing. Usage: incremental_build_test.sh NOVACAT_GEN
# (run from the repository root).
set -u
gen=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(pwd)

mkdir -p "$work/src/specs/shared" "$work/src/workflows"
sed "s|^governance: .*|governance: shared/governance.yaml|" \
  tests/adding_a_workflow/specs/annotate_nova.yaml >"$work/src/specs/annotate_nova.yaml"
cp specs/shared/governance.yaml "$work/src/specs/shared/"
cp -r tests/adding_a_workflow/workflows/annotate_nova "$work/src/workflows/"
cp "$gen" "$work/novacat-gen"
cat >"$work/src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(incremental LANGUAGES CXX)
add_executable(novacat-gen IMPORTED)
set_target_properties(novacat-gen PROPERTIES
  IMPORTED_LOCATION "$work/novacat-gen")
include("$root/cmake/NovacatWorkflow.cmake")
novacat_add_workflow(NAME annotate_nova SPEC specs/annotate_nova.yaml
  STEPS_DIR workflows NO_LAMBDA)
EOF

# Builds the generation target; prints how many times novacat-gen ran.
runs() {  # runs BUILD_DIR
  local log
  log=$(cmake --build "$1" --target novacat_generate_annotate_nova 2>&1) ||
    { fail "the build failed in $1"; echo "$log" | sed 's/^/    /' >&2; }
  grep -c "novacat-gen annotate_nova" <<<"$log"
}

check() {  # check GENERATOR
  local build="$work/build-${1// /_}"
  local binding="$build/novacat/annotate_nova/annotate_nova/annotate_nova.cpp"
  if ! cmake -S "$work/src" -B "$build" -G "$1" >"$work/configure.log" 2>&1; then
    fail "$1: configure failed"
    cat "$work/configure.log"
    return
  fi
  expect_eq "$1: the first build generates" "$(runs "$build")" 1
  expect_eq "$1: a second build runs nothing" "$(runs "$build")" 0
  touch "$work/src/specs/annotate_nova.yaml"
  expect_eq "$1: a touched spec regenerates" "$(runs "$build")" 1
  expect_eq "$1: and then nothing" "$(runs "$build")" 0
  # A rebuilt generator whose output is the same: novacat-gen leaves the
  # files as they were, and must still not run on every later build.
  touch "$work/novacat-gen"
  expect_eq "$1: a rebuilt generator regenerates" "$(runs "$build")" 1
  expect_eq "$1: and then nothing (rebuilt generator)" "$(runs "$build")" 0
  rm "$binding"
  expect_eq "$1: a deleted binding is generated again" "$(runs "$build")" 1
  [ -f "$binding" ] || fail "$1: $binding was not generated again"
  expect_eq "$1: and then nothing (deleted binding)" "$(runs "$build")" 0
}

check "Unix Makefiles"
if command -v ninja >/dev/null; then
  check Ninja
else
  echo "ninja is not installed: only Make is checked"
fi
finish "incremental builds: novacat-gen runs exactly when its inputs changed"
