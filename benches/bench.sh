#!/usr/bin/env bash
# The performance measurements of docs/performance.md, in one run:
#   bash benches/bench.sh [SCRATCH_DIR]
# Builds two trees in SCRATCH_DIR (default: $TMPDIR/clmigrate-bench): an ordinary-Rust tree
# (the crates of the local cargo registry, copied until it holds at least 100 MB) and a tree
# where every file is host code (copies of the fixtures), then reports side by side:
# ripgrep, syn parse only (in-process, all cores), the full lint (in-process and as a
# process), their ratios, peak RSS, the latency of one 2,000-line host file, and how the
# time grows when each dimension of a host program doubles (engine bench, "scaling").
# Needs hyperfine, ripgrep and GNU time; as root it installs them with apt.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${1:-${TMPDIR:-/tmp}/clmigrate-bench}
min_bytes=$((100 * 1000 * 1000))

if ! command -v hyperfine >/dev/null || ! command -v rg >/dev/null || [ ! -x /usr/bin/time ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine ripgrep time >/dev/null
    else
        echo "error: needs hyperfine, ripgrep and GNU time: sudo apt-get install hyperfine ripgrep time" >&2
        exit 2
    fi
fi

cargo build --release --quiet
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bin="$target/release/cargo-clmigrate-lint"

# The ordinary tree: registry sources, replicated up to min_bytes.
ordinary="$scratch/ordinary"
rm -rf "$ordinary"
mkdir -p "$ordinary"
registry=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -n1)
copy=0
size=0
while [ "$size" -lt "$min_bytes" ]; do
    dst="$ordinary/r$copy"
    mkdir -p "$dst"
    (cd "$registry" && find . -name '*.rs' -print0 | xargs -0 cp --parents -t "$dst")
    size=$(find "$ordinary" -name '*.rs' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    copy=$((copy + 1))
done
echo "ordinary tree: $(find "$ordinary" -name '*.rs' | wc -l) files, $((size / 1000000)) MB ($copy copies of $registry)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo

# In-process: syn parse only against the lint, on both trees, and the one-file latency.
# It also writes the host tree and the 2,000-line file into the scratch directory.
cargo bench --quiet --bench engine -- --tree "$ordinary" --out "$scratch"
echo

host="$scratch/host"
one="$scratch/one_file_2000_lines.rs"
pattern=(-e enqueue_write_buffer -e enqueue_nd_range_kernel -e set_arg)
# As processes: ripgrep (a search for API names over the Rust files) against the lint.
hyperfine -N -i --warmup 2 --runs 10 --style basic --export-json "$scratch/ordinary.json" \
    -n "rg ordinary" "rg -c -trust -w ${pattern[*]} $ordinary" \
    -n "lint ordinary" "$bin --color never $ordinary"
hyperfine -N -i --warmup 2 --runs 10 --style basic --export-json "$scratch/host.json" \
    -n "rg host" "rg -c -trust -w ${pattern[*]} $host" \
    -n "lint host" "$bin --color never $host"
# The ratios of the medians of each pair (the runs of a pair alternate).
for t in ordinary host; do
    python3 -c 'import json,sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
t = sys.argv[2]
print(f"{t}: lint {r[f\"lint {t}\"]:.3f} s / rg {r[f\"rg {t}\"]:.3f} s (medians) = {r[f\"lint {t}\"] / r[f\"rg {t}\"]:.2f}x")' \
        "$scratch/$t.json" "$t"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N -i --warmup 3 --runs 30 --style basic \
    -n "lint one 2,000-line file (process start)" "$bin --color never $one"

# Peak memory of a whole run (the lint exits 1 on the host tree: it has errors).
for t in "$ordinary" "$host"; do
    rss=$( { /usr/bin/time -v "$bin" --color never "$t" >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
    echo "peak RSS, lint $(basename "$t"): $((rss / 1024)) MB"
done
