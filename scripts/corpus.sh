#!/usr/bin/env bash
# Lints a fixed list of published crates that use the OpenCL bindings and prints the findings
# per crate. The crates are downloaded with cargo (pinned versions, no build: `cargo fetch`
# into a scratch project per crate), then read from cargo's registry source directory; nothing of them
# is compiled or run. Usage: scripts/corpus.sh [SCRATCH_DIR]   (default: target/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."

CRATES=(
    "ocl 0.19.7"
    "ocl-core 0.11.5"
    "ocl-extras 0.1.1"
    "ocl-interop 0.1.6"
    "ocl-stream 0.3.5"
    "opencl3 0.12.4"
    "cl3 0.13.2"
    "cl-sys 0.4.3"
    "opencl-sys 0.6.5"
    "rust-gpu-tools 0.7.2"
    "ec-gpu-gen 0.7.1"
    "coaster 0.2.0"
    # crates that drive several queues: ocl's fork (its `threads.rs` and `tests/concurrent.rs`
    # launch on several queues) and a binding that keeps one queue per device in a session
    "fil-ocl 0.19.6"
    "fil-ocl-core 0.11.4"
    "open-cl-core 0.2.1"
    "open-cl-low-level 0.2.1"
)

scratch="${1:-target/corpus}"
# One scratch project per crate: two crates that link the same native library (`links =
# "OpenCL"`) cannot be in one dependency graph. Each is outside this workspace.
for c in "${CRATES[@]}"; do
    set -- $c
    dir="$scratch/$1"
    mkdir -p "$dir/src"
    printf '[package]\nname = "clmigrate-corpus"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n\n[dependencies]\n%s = { version = "=%s", default-features = false }\n' "$1" "$2" > "$dir/Cargo.toml"
    echo 'fn main() {}' > "$dir/src/main.rs"
    cargo fetch --manifest-path "$dir/Cargo.toml" --quiet
done

cargo build --release --quiet --bin cargo-clmigrate-lint
bin="${CARGO_TARGET_DIR:-target}/release/cargo-clmigrate-lint"
registry="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -n 1)"

printf '%-22s %6s %8s %9s  %s\n' crate files findings seconds "findings by rule"
total_files=0
total_findings=0
start_all=$(date +%s.%N)
for c in "${CRATES[@]}"; do
    set -- $c
    dir="$registry$1-$2"
    start=$(date +%s.%N)
    out="$("$bin" --color never --message-format json "$dir" || true)"
    end=$(date +%s.%N)
    files=$({ "$bin" --color never "$dir" || true; } | tail -n 1 | sed -n 's/.* in \([0-9]*\) files\{0,1\} checked.*/\1/p')
    codes=$(printf '%s\n' "$out" | { grep -o '"code":{"code":"CLM[0-9]*"' || true; } | sed 's/.*"\(CLM[0-9]*\)"/\1/' | sort | uniq -c | awk '{printf "%s×%s ", $2, $1}')
    n=$(printf '%s\n' "$out" | grep -c '"code":{"code":"CLM' || true)
    printf '%-22s %6s %8s %9.2f  %s\n' "$1-$2" "${files:-0}" "$n" "$(echo "$end - $start" | bc)" "$codes"
    total_files=$((total_files + ${files:-0}))
    total_findings=$((total_findings + n))
done
end_all=$(date +%s.%N)
printf '%-22s %6s %8s %9.2f\n' total "$total_files" "$total_findings" "$(echo "$end_all - $start_all" | bc)"
echo
echo "Findings in full:"
for c in "${CRATES[@]}"; do
    set -- $c
    "$bin" --color never "$registry$1-$2" | grep -v '^0 errors' || true
done
