#!/usr/bin/env bash
# Prints a Python 3 that has PyYAML and jsonschema (the tests need both):
# the first python3 on PATH if it has them, else Debian's /usr/bin/python3.
for py in "$(command -v python3)" /usr/bin/python3; do
  if [ -x "$py" ] && "$py" -c 'import yaml, jsonschema' 2>/dev/null; then
    echo "$py"
    exit 0
  fi
done
echo "no python3 with yaml and jsonschema found" >&2
exit 1
