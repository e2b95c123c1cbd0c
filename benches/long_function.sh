#!/usr/bin/env bash
# One long function, timed at two sizes in one run, so the larger shows whether the analysis
# of one function stays linear (the smaller is the baseline: ten times the statements should
# take about ten times as long):
# - 10,000 and 100,000 `let`s between two uploads that race;
# - 10,000 and 100,000 uploads of one buffer alternating over two queues (commands per
#   buffer; past the 10,000th command of a function the analysis forgets what they touch);
# - the same uploads made by calls of a closure defined in the function.
# Usage: benches/long_function.sh [SCRATCH_DIR]   (default: target/long-function)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-target/long-function}"
mkdir -p "$dir"
cargo build --release --quiet --bin cargo-clmigrate-lint
bin="${CARGO_TARGET_DIR:-target}/release/cargo-clmigrate-lint"
prelude() {
    echo 'use opencl3::command_queue::CommandQueue;'
    echo 'use opencl3::memory::Buffer;'
    echo 'use opencl3::types::{cl_float, CL_NON_BLOCKING};'
    echo 'fn f(q0: &CommandQueue, q1: &CommandQueue, b: &mut Buffer<cl_float>, d: &[cl_float]) {'
}
for n in 10000 100000; do
    f="$dir/lets_$n.rs"
    {
        prelude
        echo '    unsafe { q0.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, d, &[]).unwrap() };'
        echo '    let x0 = 0u32;'
        awk -v n="$n" 'BEGIN { for (i = 1; i < n; i++) printf "    let x%d = x%d;\n", i, i - 1 }'
        echo '    unsafe { q1.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, d, &[]).unwrap() };'
        echo '}'
    } > "$f"
    f="$dir/enqueues_$n.rs"
    {
        prelude
        # One short line each: 100,000 of them stay under the 4 MiB a file may have.
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "q%d.enqueue_write_buffer(b,0,0,d,&[]);\n", i % 2 }'
        echo '}'
    } > "$f"
    f="$dir/closure_enqueues_$n.rs"
    {
        prelude
        echo '    let up = |q: &CommandQueue, b: &mut Buffer<cl_float>| unsafe { q.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, d, &[]).unwrap() };'
        awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "up(q%d,b);\n", i % 2 }'
        echo '}'
    } > "$f"
done
for shape in lets enqueues closure_enqueues; do
    for n in 10000 100000; do
        /usr/bin/time -f "$n $shape: %e s wall, %U s user, %M KB" "$bin" --format short "$dir/${shape}_$n.rs" > /dev/null || true
    done
done
