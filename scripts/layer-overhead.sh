#!/usr/bin/env bash
# The cost of the OpenCL layer of `cargo clmigrate-lint run`: the fixtures' programs (the
# variants `confirm` runs, compiled into the binary) timed plainly, with the layer loaded
# (OPENCL_LAYERS), and under the whole `run` command (which also reads the findings and
# checks the reported files statically), interleaved, in one run. Prints the median of
# REPEAT runs of each, in milliseconds of wall time per program.
#
#   bash scripts/layer-overhead.sh BIN LAYER PLATFORM_INDEX DEVICES [REPEAT]
#
# BIN is cargo-clmigrate-lint, LAYER libclmigrate_layer.so; PLATFORM_INDEX and DEVICES are
# those of `cargo-clmigrate-lint confirm-child list`. With LOADER set (an ICD loader with
# layer support), every program is run with that loader preloaded, so only the layer differs.
set -euo pipefail
bin=$1 layer=$2 platform=$3 devices=$4 repeat=${5:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
preload=()
if [ -n "${LOADER:-}" ]; then preload=(env "LD_PRELOAD=$LOADER"); fi

ms() { # wall milliseconds of a command
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-32s %-6s %8s %8s %8s %7s\n' program variant plain layer run layer/plain
for s in seed host-pointer-kernel-arg host-migration-between-devices missing-wait-list \
    duplicate-shared-buffer-init migration-on-source-queue; do
    for v in buggy fixed; do
        args=(confirm-child run --platform-index "$platform" --devices "$devices" --scenario "$s"
            --variant "$v" --hold-ms 0 --runs 1)
        plain=() with=() whole=()
        for _ in $(seq "$repeat"); do
            plain+=("$(ms "${preload[@]}" "$bin" "${args[@]}")")
            with+=("$(ms "${preload[@]}" env OPENCL_LAYERS="$layer" CLMIGRATE_LAYER_OUTPUT="$out" "$bin" "${args[@]}")")
            whole+=("$(ms "$bin" run --layer "$layer" ${LOADER:+--loader "$LOADER"} -- "$bin" "${args[@]}")")
        done
        p=$(printf '%s\n' "${plain[@]}" | median)
        l=$(printf '%s\n' "${with[@]}" | median)
        r=$(printf '%s\n' "${whole[@]}" | median)
        printf '%-32s %-6s %8s %8s %8s %7s\n' "$s" "$v" "$p" "$l" "$r" \
            "$(awk -v l="$l" -v p="$p" 'BEGIN {printf "%.2f", l / p}')"
    done
done
