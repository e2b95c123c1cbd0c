#!/usr/bin/env bash
# Creates the Python environment the editor tests run their clients from: pygls (a language
# client) and pre-commit, at pinned versions. Usage: scripts/test-venv.sh DIR; prints DIR's
# python. Does nothing when DIR already has them at these versions.
set -euo pipefail
dir="$1"
pins=(pygls==2.1.1 lsprotocol==2025.0.0 pre-commit==4.7.0)
stamp="$dir/.pins"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]; then
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
    echo "${pins[*]}" >"$stamp"
fi
echo "$dir/bin/python"
