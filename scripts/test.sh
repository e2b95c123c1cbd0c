#!/usr/bin/env bash
# Runs the whole test suite. The runtime-harness tests need real OpenCL devices: PoCL's CPU
# device (two of them with POCL_DEVICES="pthread pthread", which the tests set), and the
# binding fixtures link against libOpenCL. When the ICD loader, its development link or
# the PoCL ICD is missing and this runs as root, it installs them with apt.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pocl() {
    ! { ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so ' && ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1; }
}
if need_pocl; then
    if [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo >/dev/null
    else
        echo "error: PoCL is not installed; run: sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev" >&2
        exit 2
    fi
fi

# The editor tests drive the language server and the pre-commit hook from real clients
# (pygls, pre-commit), pinned in a venv where cargo puts test files; the tests also make it.
if ! python3 -c 'import ensurepip' 2>/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq python3-venv >/dev/null
fi
bash scripts/test-venv.sh "${CARGO_TARGET_DIR:-target}/tmp/test-venv" >/dev/null

cargo fmt --check
# The package fixtures are real crates of their own: they must build against the bindings
# they use (edition 2015 warnings of `legacy` are expected).
for manifest in fixtures/crates/*/Cargo.toml; do
    cargo check --locked --quiet --manifest-path "$manifest" \
        --target-dir "${CARGO_TARGET_DIR:-target}/fixture-crates" 2>&1 | { grep -E '^error' -A 5 || true; }
    test "${PIPESTATUS[0]}" = 0
done
cargo clippy --locked --all-targets -- -D warnings
# The OpenCL layer of `run` is a cdylib that `cargo test` does not build; tests/layer.rs loads it.
cargo build --locked -p clmigrate-layer
cargo test --locked --all-targets
