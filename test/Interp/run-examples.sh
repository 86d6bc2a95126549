#!/usr/bin/env bash
# Runs every example of examples/ for one target through the interpreter,
# at the small shapes of shapes.txt, and checks its outputs two ways:
#   - against the same example lowered for sm_80 without tensor cores (the
#     CUDA-core FMA path, no mma/mfma/wgmma, no cp.async), also interpreted,
#     within 1e-3 + 1e-2 * |baseline| (the lowerings differ only in
#     accumulation order and one final rounding);
#   - against the Python reference in reference.py, where it has one.
# A line per example; exits 1 if any example fails.
#
#   run-examples.sh TILEC TILEC_RUN PYTHON EXAMPLES_DIR TARGET WORK_DIR [FLAG...]
#
# FLAGs go to tilec for TARGET (e.g. --no-tma). SHAPES names another list
# of examples and flags than shapes.txt. BASELINE=none skips the CUDA-core
# comparison, for examples that compile only for TARGET (flashmla_decode is
# sm_90 only); each of them must then have a Python reference.
set -u
TILEC=$1 RUN=$2 PYTHON=$3 EXAMPLES=$4 TARGET=$5 WORK=$6
shift 6
TARGET_FLAGS=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
status=0
while IFS=: read -r name rest; do
  case $name in '#'* | '') continue ;; esac
  # NAME@VARIANT: another run of examples/NAME.tile (other -D flags).
  example=${name%@*}
  defines=${rest%%|*}
  run_flags=${rest#*|}
  base=$WORK/$name
  compare=(--compare "$base-fma.txt" --atol 1e-3)
  require=()
  if [ "${BASELINE:-}" = none ]; then
    compare=()
    require=(--require)
  # shellcheck disable=SC2086 # the flags are separate words
  elif ! "$TILEC" "$EXAMPLES/$example.tile" $defines --target=sm_80 \
    --no-tensor-cores --emit=lowered-ir -o "$base-fma.tir" 2>"$base.log" ||
    ! "$RUN" "$base-fma.tir" --target=sm_80 $run_flags -o "$base-fma.txt" \
      2>"$base.log"; then
    echo "FAIL $name: the CUDA-core baseline did not run"
    cat "$base.log"
    status=1
    continue
  fi
  # shellcheck disable=SC2086
  if ! "$TILEC" "$EXAMPLES/$example.tile" $defines --target="$TARGET" \
    "${TARGET_FLAGS[@]}" --emit=lowered-ir -o "$base-$TARGET.tir" 2>"$base.log" ||
    ! "$RUN" "$base-$TARGET.tir" --target="$TARGET" $run_flags \
      -o "$base-$TARGET.txt" "${compare[@]}" >"$base.cmp" \
      2>"$base.log"; then
    echo "FAIL $name ($TARGET): $(grep -v ' 0 mismatches' "$base.cmp" | head -3)"
    cat "$base.log"
    status=1
    continue
  fi
  if ! "$PYTHON" "$HERE/reference.py" "${require[@]}" "$name" \
    "$base-$TARGET.txt"; then
    status=1
    continue
  fi
  echo "PASS $name ($TARGET)"
done <"${SHAPES:-$HERE/shapes.txt}"
exit $status
