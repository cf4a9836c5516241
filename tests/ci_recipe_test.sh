#!/usr/bin/env bash
# docs/ci, as a user runs it: the GitHub Actions job's check (its last
# step's command, with this build's novacat-gen) and the pre-commit hook, in
# a git repository holding specs/ and generated/. Usage:
# ci_recipe_test.sh NOVACAT_GEN (run from the repository root).
set -u
gen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

repo=$work/repo
mkdir -p "$repo"
cp -r specs generated "$repo/"
cd "$repo" || exit 1
git init -q && git config user.email ci@example.com && git config user.name ci
git add -A && git commit -qm base
cp "$root/docs/ci/pre-commit" .git/hooks/pre-commit
export NOVACAT_GEN=$gen

# The job's check, exactly as its last step runs it.
job=$(python3 -c "
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))['jobs']['generated-in-sync']['steps']
print(steps[-1]['run'])" "$root/docs/ci/github-actions.yml")
expect_eq "job command" "$job" \
  "build/generator/novacat-gen --check -q --format github specs/*.yaml"
job=${job/build\/generator\/novacat-gen/$gen}

out=$(bash -c "$job" 2>&1)
expect_eq "job in sync exit" "$?" "0"
expect_eq "job in sync output" "$out" ""

# A spec edited without regenerating: one stale file, annotated.
sed -i 's/Scheduled refresh (time-bucketed)\./Daily refresh, per nova./' \
  specs/refresh_references.yaml
out=$(bash -c "$job" 2>/dev/null)
expect_eq "job stale exit" "$?" "1"
expect_eq "job stale annotation" "$out" \
  "::error file=generated/refresh_references/README.md,title=stale-file::generated/refresh_references/README.md is out of date; run novacat-gen $(echo specs/*.yaml) to regenerate"

# The hook refuses to commit it, and the commit is not made.
head=$(git rev-parse HEAD)
git add specs && git commit -qm "spec only" 2>"$work/hook.err"
expect_eq "hook refuses exit" "$?" "1"
expect_eq "hook message" "$(tail -n 1 "$work/hook.err")" \
  "pre-commit: generated/ is not in sync with specs/; run novacat-gen specs/*.yaml and stage generated/"
expect_eq "nothing committed" "$(git rev-parse HEAD)" "$head"

# Regenerated and staged: the hook lets it through, the job is green.
"$gen" -q --steps-dir "$work/steps" specs/*.yaml || fail "regeneration failed"
git add -A && git commit -qm "spec and generated" 2>"$work/hook.err" ||
  fail "hook refused an in-sync commit: $(cat "$work/hook.err")"
out=$(bash -c "$job" 2>&1)
expect_eq "job green again" "$?:$out" "0:"

# A spec error is annotated at its line.
sed -i 's/^  refresh_references: {}  # the input (shared\/events.yaml)$/  refresh_references: {fields: 3}/' \
  specs/refresh_references.yaml
out=$(bash -c "$job" 2>/dev/null)
expect_eq "job spec error exit" "$?" "2"
expect_eq "job spec error annotation" "$(echo "$out" | grep title=event-catalog)" \
  "::error file=specs/refresh_references.yaml,line=37,col=3,endColumn=21,title=event-catalog::event 'refresh_references' is declared in the event catalog (specs/shared/events.yaml:16); name it here without 'fields'"

finish "CI recipe: all checks passed"
