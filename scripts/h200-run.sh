#!/usr/bin/env bash
# `cargo clmigrate-lint run` on a host with NVIDIA's OpenCL driver (the H200 host of
# docs/confirmations.md), from artifacts built elsewhere:
#
#   bash scripts/h200-run.sh DIR
#
# DIR holds cargo-clmigrate-lint (or cargo-clmigrate-lint.xz) and libclmigrate_layer.so,
# from `cargo build --release` of this workspace. Prints the fixtures' programs under `run`
# on the NVIDIA platform (one device, both queues on it), the layer's overhead there, and
# `confirm` of the CLM002 scenario. NVIDIA's ICD is named in a vendors directory of its own
# (the host's lists only PoCL); the CUDA loader first in the library path lacks layer
# support, so `run` preloads ocl-icd's.
set -uo pipefail
dir=$(cd "$1" && pwd)
work=$(mktemp -d)
if [ -f "$dir/cargo-clmigrate-lint.xz" ]; then
    xz -dc "$dir/cargo-clmigrate-lint.xz" >"$work/cargo-clmigrate-lint"
else
    cp "$dir/cargo-clmigrate-lint" "$work/"
fi
cp "$dir/libclmigrate_layer.so" "$work/"
chmod +x "$work/cargo-clmigrate-lint"
bin=$work/cargo-clmigrate-lint

mkdir -p "$work/vendors"
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >"$work/vendors/nvidia.icd"
cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null
export OCL_ICD_VENDORS=$work/vendors

echo "== loaders"
ldconfig -p | grep 'libOpenCL.so' || true
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
echo "== platforms"
"$bin" confirm-child list | tee "$work/list.json"
nvidia=$(python3 2>/dev/null -c 'import json,sys; s=json.load(open(sys.argv[1]))["sets"]; print(next(x["platform_index"] for x in s if "NVIDIA" in x["platform"]))' "$work/list.json")
[ -n "$nvidia" ] || { echo "no NVIDIA platform: is libnvidia-opencl.so.1 in /usr/local/nvidia/lib64?"; exit 1; }
echo "NVIDIA platform index: $nvidia"

for s in seed host-pointer-kernel-arg host-migration-between-devices missing-wait-list \
    duplicate-shared-buffer-init migration-on-source-queue; do
    for v in buggy fixed; do
        echo "== run: $s $v"
        (cd "$work" && "$bin" run --color never -- "$bin" confirm-child run --platform-index "$nvidia" \
            --devices 1 --scenario "$s" --variant "$v" --hold-ms 0 --runs 1 >run.out 2>run.err)
        echo "exit status $?"
        grep -v '^{' "$work/run.err"
        cat "$work/run.out"
    done
done

echo "== overhead (median of 3, ms)"
loader=$(ldconfig -p | awk '/libOpenCL.so.1 .*x86-64/ {print $NF}' | while read -r l; do
    grep -q OPENCL_LAYERS "$l" && echo "$l" && break; done)
[ -n "$loader" ] || loader=/lib/x86_64-linux-gnu/libOpenCL.so.1
LOADER=$loader bash "$(dirname "$0")/layer-overhead.sh" "$bin" "$work/libclmigrate_layer.so" "$nvidia" 1 3

echo "== confirm CLM002"
"$bin" confirm --platform NVIDIA --scenario CLM002 --runs 5 --timeout-s 60
"$bin" confirm --platform NVIDIA --scenario CLM002 --runs 5 --timeout-s 60 --json
