#!/usr/bin/env bash
# One long function: 10,000 and 100,000 `let`s between two uploads that race, timed in one
# run, so the larger shows whether the analysis of one function stays linear (the smaller
# is the baseline: ten times the lets should take about ten times as long).
# Usage: benches/long_function.sh [SCRATCH_DIR]   (default: target/long-function)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-target/long-function}"
mkdir -p "$dir"
cargo build --release --quiet --bin cargo-clmigrate-lint
bin="${CARGO_TARGET_DIR:-target}/release/cargo-clmigrate-lint"
for n in 10000 100000; do
    f="$dir/lets_$n.rs"
    {
        echo 'use opencl3::command_queue::CommandQueue;'
        echo 'use opencl3::memory::Buffer;'
        echo 'use opencl3::types::{cl_float, CL_NON_BLOCKING};'
        echo 'fn f(q0: &CommandQueue, q1: &CommandQueue, buf: &mut Buffer<cl_float>, data: &[cl_float]) {'
        echo '    unsafe { q0.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, data, &[]).unwrap() };'
        echo '    let x0 = 0u32;'
        awk -v n="$n" 'BEGIN { for (i = 1; i < n; i++) printf "    let x%d = x%d;\n", i, i - 1 }'
        echo '    unsafe { q1.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, data, &[]).unwrap() };'
        echo '}'
    } > "$f"
    /usr/bin/time -f "$n lets: %e s wall, %U s user, %M KB" "$bin" --format short "$f" > /dev/null || true
done
