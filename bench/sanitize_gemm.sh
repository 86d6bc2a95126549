#!/usr/bin/env bash
# The GEMM examples' TMA/mbarrier pipelines (sm_90) on small ragged shapes:
# each configuration is compiled with tilec and nvcc (bench/sanitize_gemm.cu
# drives it), checked against a host reference, then run under
# compute-sanitizer's memcheck, racecheck and synccheck. Prints one line per
# run; exit status 1 when any failed.
#
#   bash bench/sanitize_gemm.sh [TILEC]      (default build/tools/tilec/tilec)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TILEC=${1:-${TILEC:-build/tools/tilec/tilec}}
WORK=${WORK:-/tmp/tilec-sanitize}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$WORK"
status=0

# name | example | tilec -D flags | harness flags | M N K runs
CONFIGS=(
  "static-ragged|gemm|-D M=200 -D N=256 -D K=320||200 256 320"
  "smaller-than-tile|gemm|-D M=16 -D N=128 -D K=64||16 128 64"
  "wide-s4|gemm|-D M=300 -D N=512 -D K=448 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256||300 512 448"
  "bf16-ragged|gemm|-D M=129 -D N=256 -D K=192 -D dtype=bfloat16|-DELEM=__nv_bfloat16|129 256 192"
  "dynamic-m|gemm_dynamic|-D N=256 -D K=256|-DTRANS_B -DDYN_M|77 256 256;1 256 256;300 256 256"
)

for entry in "${CONFIGS[@]}"; do
  IFS='|' read -r name stem defs hflags runs <<<"$entry"
  dir="$WORK/$name"
  mkdir -p "$dir"
  fn=$(grep -m1 -o '^def [a-z_]*' "examples/$stem.tile" | cut -c5-)
  if ! "$TILEC" "examples/$stem.tile" --target=sm_90 $defs -o "$dir/gemm.cu" ||
    ! "$NVCC" -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I runtime \
      -I "$dir" -DGEMM_HEADER='"gemm.h"' -DGEMM_FN="$fn" $hflags \
      "$dir/gemm.cu" bench/sanitize_gemm.cu -o "$dir/run"; then
    echo "$name: BUILD FAILED"
    status=1
    continue
  fi
  IFS=';' read -ra shapes <<<"$runs"
  for shape in "${shapes[@]}"; do
    echo "$name ($shape): $("$dir/run" $shape)" || status=1
    "$dir/run" $shape >/dev/null || status=1
    for tool in memcheck racecheck synccheck; do
      if compute-sanitizer --tool "$tool" --error-exitcode 97 "$dir/run" $shape \
        >"$dir/$tool.log" 2>&1; then
        echo "  $tool: clean ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$dir/$tool.log" || grep -m1 -o 'RACECHECK SUMMARY: [0-9]* hazards.*' "$dir/$tool.log" || echo ok))"
      else
        echo "  $tool: FAILED"
        tail -20 "$dir/$tool.log"
        status=1
      fi
    done
  done
done
exit $status
