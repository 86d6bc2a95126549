#!/usr/bin/env bash
# Runs the benchmark on a GPU machine: the command to give the device tool.
#
#   bash bench/device.sh [bench/run.py options]      e.g. --only gemm,softmax
#
# Needs on that machine only what its image has (python3 with torch, nvcc,
# nvidia-smi); builds nothing that must be installed. tilec is not built
# there: it is the static binary carried from this checkout, found as $TILEC,
# bench/bin/tilec or build/tools/tilec/tilec (carry that path).
#
# Writes into $OUT (else bench/out): results.json, table.txt, log.txt,
# sources.tar.gz, nvidia-smi.txt, selftest.txt. The table is printed last.
#
# Environment: BENCH_BUDGET (seconds for bench/run.py, default 520: the
# device tool stops a command at 600 s), BENCH_SELFTEST=0 skips the check of
# bench/refs.py's references against the torch baselines.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/bench/out}
mkdir -p "$OUT"

nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm \
  --format=csv >"$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >>"$OUT/nvidia-smi.txt"
cat "$OUT/nvidia-smi.txt"

if [ "${BENCH_SELFTEST:-1}" != 0 ]; then
  python3 bench/run.py --selftest-refs "$@" 2>&1 | tee "$OUT/selftest.txt" | grep -v '^ ' || true
fi

python3 bench/run.py --out "$OUT" --budget "${BENCH_BUDGET:-520}" "$@"
