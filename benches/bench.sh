#!/usr/bin/env bash
# The performance measurements of docs/performance.md, in one run:
#   bash benches/bench.sh [--quick] [--before BINARY] [SCRATCH_DIR]
# Builds in SCRATCH_DIR (default: $TMPDIR/clmigrate-bench) an ordinary tree (the crates of
# the local cargo registry, with their manifests, copied until it holds at least 100 MB of
# source) and the same without the crates the checker reads (those with an OpenCL binding),
# then reports:
# - in-process (`cargo bench --bench engine`): the host tree (every file OpenCL host code)
#   against the syn-parse-only floor, C/C++ against Rust per byte, the growth per dimension
#   ("scaling", 2.0 is linear) and one 2,000-line host file;
# - as processes, interleaved (benches/paired.py): ripgrep against the lint on both
#   ordinary trees and on the host tree, and the 2,000-line file: median wall and CPU time,
#   peak RSS and the ratios; with --before, a previous build of the lint beside them;
# - what was not checked in full, and why.
# --quick: fewer runs and a smaller host tree, for a loaded machine.
# Needs ripgrep and python3; as root it installs ripgrep with apt.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
before=
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=(--quick); shift ;;
        --before) before=$(realpath "$2"); shift 2 ;;
        *) break ;;
    esac
done
scratch=${1:-${TMPDIR:-/tmp}/clmigrate-bench}
min_bytes=$((100 * 1000 * 1000))
if [ ${#quick[@]} -gt 0 ]; then runs=3; else runs=10; fi

if ! command -v rg >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null
    else
        echo "error: needs ripgrep: sudo apt-get install ripgrep" >&2
        exit 2
    fi
fi

cargo build --release --quiet --bin cargo-clmigrate-lint
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bin="$target/release/cargo-clmigrate-lint"
lint() { "$bin" --color never "$@"; }
sources=(-g '*.{rs,c,h,cpp,cc,cxx,hpp,hh,hxx}')
# The files the lint reads, for counting.
count_sources() {
    find "$1" -type f \( -name '*.rs' -o -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cc' \
        -o -name '*.cxx' -o -name '*.hpp' -o -name '*.hh' -o -name '*.hxx' \) "${@:2}"
}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

# The ordinary trees: registry crates (sources and manifests, hard links where the file
# system allows), replicated up to min_bytes; the second without the crates that the lint
# reads (it skips every file of the others).
registry=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -n1)
ordinary="$scratch/ordinary"
plain="$scratch/ordinary_without_opencl"
rm -rf "$ordinary" "$plain"
mkdir -p "$ordinary" "$plain"
opencl=()
for c in "$registry"*/; do
    summary=$(lint "$c" 2>/dev/null | tail -n1 || true)
    checked=$(sed -n 's/.* in \([0-9]*\) files\{0,1\} checked.*/\1/p' <<<"$summary")
    skipped=$(sed -n 's/.*; \([0-9]*\) files\{0,1\} in crates without.*/\1/p' <<<"$summary")
    if [ -n "$checked" ] && [ "$checked" != "${skipped:-0}" ]; then
        opencl+=("$(basename "$c")")
    fi
done
link=()
probe=$(find "$registry" -name Cargo.toml -print -quit)
if ln "$probe" "$scratch/.link-probe" 2>/dev/null; then
    link=(-l)
fi
rm -f "$scratch/.link-probe"
copy_crate() { # SOURCE DEST: the crate's source files and manifests
    (cd "$1" && find . -type f \( -name Cargo.toml -o -name '*.rs' -o -name '*.c' -o -name '*.h' \
        -o -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.hpp' -o -name '*.hh' \
        -o -name '*.hxx' -o -name '*.cl' \) -print0 | xargs -0 -r cp --parents "${link[@]}" -t "$2")
}
copy=0
size=0
while [ "$size" -lt "$min_bytes" ]; do
    for c in "$registry"*/; do
        name=$(basename "$c")
        mkdir -p "$ordinary/r$copy/$name"
        copy_crate "$c" "$ordinary/r$copy/$name"
        if ! printf '%s\n' "${opencl[@]}" | grep -qxF "$name"; then
            mkdir -p "$plain/r$copy/$name"
            copy_crate "$c" "$plain/r$copy/$name"
        fi
    done
    size=$(count_sources "$ordinary" -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    copy=$((copy + 1))
done
for t in "$ordinary" "$plain"; do
    echo "$(basename "$t"): $(count_sources "$t" | wc -l) source files," \
        "$(($(count_sources "$t" -printf '%s\n' | awk '{s += $1} END {print s + 0}') / 1000000)) MB" \
        "($copy copies of $registry)"
done
echo "crates with an OpenCL binding (read by the lint, left out of the second tree): ${opencl[*]}"
echo "source files in hidden directories (not read, by design): $(count_sources "$ordinary" -path '*/.*' | wc -l)"
echo

# In-process: syn parse only against the lint on the host tree, the one-file latency and
# the growth per dimension. It writes the host tree and the 2,000-line file into scratch.
cargo bench --quiet --bench engine -- "${quick[@]}" --out "$scratch"
echo

host="$scratch/host"
one="$scratch/one_file_2000_lines.rs"
pattern="-e enqueue_write_buffer -e enqueue_nd_range_kernel -e set_arg"
# As processes: ripgrep (a search for API names over the same source files) against the
# lint. The runs of a group alternate.
for t in "$ordinary" "$plain" "$host"; do
    echo "$(basename "$t"): $(lint "$t" 2>/dev/null | tail -n1 || true)"
    cmds=("rg=rg -c -w ${sources[*]} $pattern $t" "lint=$bin --color never $t")
    if [ -n "$before" ]; then
        cmds+=("before=$before --color never $t")
    fi
    python3 benches/paired.py --runs "$runs" --warmup 1 "${cmds[@]}"
done
echo "one 2,000-line file as a process (start included):"
cmds=("lint=$bin --color never $one")
if [ -n "$before" ]; then
    cmds+=("before=$before --color never $one")
fi
python3 benches/paired.py --runs $((runs * 3)) --warmup 2 "${cmds[@]}"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
