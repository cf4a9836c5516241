#!/usr/bin/env bash
# Packages a workflow's Lambda binary as a zip for the provided.al2023
# custom runtime, self-contained the way awslabs/aws-lambda-cpp's packager
# does it: the binary is built against this machine's glibc (Debian 12:
# 2.36) and Amazon Linux 2023 has 2.34, so the zip carries every shared
# library the binary needs, glibc and its dynamic loader included, and a
# `bootstrap` that starts the binary through that loader:
#
#   bootstrap              exec lib/ld-linux-*.so.2 --library-path lib bin/NAME
#   bin/NAME               the binary (debug sections stripped)
#   lib/*.so*              what ldd lists (glibc 2.34 and later has the
#                          files and dns NSS modules inside libc, so name
#                          lookups dlopen nothing; the test checks it)
#   DEST/...               each --data DIR=DEST folder
#
# The zip is deterministic (sorted entries, fixed times, no extra fields)
# and written atomically: a failed run leaves no zip behind.
#
#   package_lambda.sh --binary BIN --name NAME --out OUT.zip [--data DIR=DEST]...
set -euo pipefail

usage() {
  echo "usage: $0 --binary BIN --name NAME --out OUT.zip [--data DIR=DEST]..." >&2
  exit 2
}

binary="" name="" out="" data=()
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:-}"; shift 2 ;;
    --name) name="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --data) data+=("${2:-}"); shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$binary" ] && [ -n "$name" ] && [ -n "$out" ] || usage
if [ ! -x "$binary" ]; then
  echo "package_lambda: $binary: no such executable" >&2
  exit 1
fi
for tool in ldd zip objcopy; do
  command -v "$tool" >/dev/null || {
    echo "package_lambda: '$tool' is missing (scripts/setup.sh installs it)" >&2
    exit 1
  }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage" "$out.tmp"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
objcopy --strip-debug "$binary" "$stage/bin/$name"

# ldd prints "libx.so.1 => /path/libx.so.1 (0x...)", the loader as
# "/lib64/ld-linux-x86-64.so.2 (0x...)" and the vDSO without a path.
loader="" libc=""
while read -r line; do
  case "$line" in
    *"=> not found"*)
      echo "package_lambda: $binary needs ${line%% *}, which is not found" >&2
      exit 1 ;;
    *" => /"*)
      soname="${line%% *}"
      path="${line#* => }"; path="${path%% (*}"
      cp -L "$path" "$stage/lib/$soname"
      case "$soname" in libc.so.*) libc="$path" ;; esac ;;
    /*)
      path="${line%% (*}"
      loader=$(basename "$path")
      cp -L "$path" "$stage/lib/$loader" ;;
  esac
done < <(ldd "$binary")
if [ -z "$loader" ] || [ -z "$libc" ]; then
  echo "package_lambda: $binary is not a dynamically linked glibc program" >&2
  exit 1
fi
cat >"$stage/bootstrap" <<BOOTSTRAP
#!/bin/sh
# The custom runtime's entry point: $name through the glibc it was built
# with, shipped in lib/ (Lambda's own is older).
set -eu
root="\${LAMBDA_TASK_ROOT:-\$(cd "\$(dirname "\$0")" && pwd)}"
exec "\$root/lib/$loader" --library-path "\$root/lib" "\$root/bin/$name" "\$@"
BOOTSTRAP

for pair in "${data[@]}"; do
  src="${pair%%=*}" dest="${pair#*=}"
  if [ ! -d "$src" ]; then
    echo "package_lambda: data folder $src does not exist" >&2
    exit 1
  fi
  mkdir -p "$stage/$dest"
  cp -R "$src/." "$stage/$dest/"
done

chmod -R u=rwX,go=rX "$stage"
chmod 0755 "$stage/bootstrap" "$stage/bin/$name" "$stage/lib/$loader"
find "$stage" -exec touch -h -d "1980-01-02 00:00:00 UTC" {} +
mkdir -p "$(dirname "$out")"
rm -f "$out.tmp"
(cd "$stage" && find . -type f | LC_ALL=C sort | sed 's|^\./||' |
  zip -X -q -@ "$out.tmp")
mv "$out.tmp" "$out"
libraries=$(find "$stage/lib" -type f | wc -l)
echo "package_lambda: $out: $(du -k "$out" | cut -f1) KiB ($libraries libraries)"
