#!/usr/bin/env bash
# Lints a fixed list of public C and C++ OpenCL host programs and prints the findings per
# source tree. The sources are pinned commits of public repositories, read from bare git
# mirrors on this machine (`git clone --bare https://github.com/OWNER/NAME
# "$CORPUS_MIRRORS/OWNER+NAME/repo"` makes one); the C, C++ and OpenCL C files of the listed
# directories are exported into a scratch directory. Nothing is built, run or downloaded.
# Usage: scripts/corpus-c.sh [SCRATCH_DIR]   (default: target/corpus-c)
set -euo pipefail
cd "$(dirname "$0")/.."

mirrors="${CORPUS_MIRRORS:-/work/.mirror}"
# repository, pinned commit, directories checked
TREES=(
    "Xilinx/Vitis_Accel_Examples 7249a1af37375a0de47f3d96047482a7aabc11b1 hello_world sys_opt performance common"
    "pocl/pocl 5066640dcbff6df32241da2416c964ea69659999 tests/runtime examples"
    "KhronosGroup/OpenCL-CTS b8f8906c251926b1b3679323bfbf3df730b40fb8 test_conformance/buffers test_conformance/events test_conformance/multiple_device_context"
    "Xilinx/SDAccel_Examples f58f1616d92db70b7182eab7884d15c7e675b37a getting_started acceleration vision libs"
    "HandsOnOpenCL/Exercises-Solutions be2fb26d7c478627598ffba369014a4adb57b6f4 Exercises Solutions"
    "KhronosGroup/OpenCL-SDK 6f25f5d0571eae335f7fb6f494682dc0b7df546f samples"
)

scratch="${1:-target/corpus-c}"
rm -rf "$scratch"
mkdir -p "$scratch"
for t in "${TREES[@]}"; do
    set -- $t
    repo="$1" commit="$2"
    shift 2
    git_dir="$mirrors/${repo/\//+}/repo"
    if [ ! -d "$git_dir" ]; then
        echo "missing mirror $git_dir: git clone --bare https://github.com/$repo $git_dir" >&2
        exit 2
    fi
    out="$scratch/${repo/\//+}"
    git --git-dir "$git_dir" ls-tree -r --name-only "$commit" -- "$@" |
        { grep -E '\.(c|h|cpp|cc|hpp|cl)$' || true; } |
        while read -r f; do
            mkdir -p "$out/$(dirname "$f")"
            git --git-dir "$git_dir" cat-file blob "$commit:$f" > "$out/$f"
        done
done

cargo build --release --quiet --bin clmigrate-lint
bin="${CARGO_TARGET_DIR:-target}/release/clmigrate-lint"

printf '%-34s %6s %6s %8s %9s  %s\n' tree files bytes findings seconds "findings by rule"
for t in "${TREES[@]}"; do
    set -- $t
    dir="$scratch/${1/\//+}"
    files=$(find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cc' -o -name '*.hpp' \) | wc -l)
    bytes=$(find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.cc' -o -name '*.hpp' \) -exec cat {} + | wc -c)
    start=$(date +%s.%N)
    out="$("$bin" --color never --format short "$dir" || true)"
    end=$(date +%s.%N)
    n=$(printf '%s\n' "$out" | grep -c ': \(error\|warning\)\[CLM' || true)
    codes=$(printf '%s\n' "$out" | { grep -o '\[CLM[0-9]*\]' || true; } | sort | uniq -c | awk '{printf "%s×%s ", $2, $1}')
    printf '%-34s %6s %6s %8s %9.2f  %s\n' "$1" "$files" "$((bytes / 1024))K" "$n" "$(echo "$end - $start" | bc)" "$codes"
done
echo
echo "Findings in full:"
for t in "${TREES[@]}"; do
    set -- $t
    "$bin" --color never --format short "$scratch/${1/\//+}" | grep 'CLM' || true
done
