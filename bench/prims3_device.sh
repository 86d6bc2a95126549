#!/bin/bash
# Builds and runs bench/prims3_device.cu on a GPU machine: tilec (in
# $TILEC, default .dev-prims3/tilec) compiles the test inputs for sm_90 and
# sm_80; nvcc builds sm_90 code as sm_90a and sm_80 code as compute_80 PTX
# (JIT-compiled for the GPU); each build runs the checks, then
# compute-sanitizer memcheck runs the sm_90 build. Usage:
#   bash bench/prims3_device.sh SRC_DIR RUNTIME_DIR TILELANG_EXAMPLES OUT_DIR
set -u
SRC=$1 RT=$2 EX=$3 OUTD=$4
TILEC=${TILEC:-.dev-prims3/tilec}
NVCC=${NVCC:-nvcc}
W=$(mktemp -d)
for T in sm_90 sm_80; do
  D=$W/$T && mkdir -p $D
  $TILEC $SRC/test/CodeGen/Inputs/rng.tile --target=$T -o $D/rng.cu || exit 1
  $TILEC $SRC/test/CodeGen/Inputs/grid_sync.tile --target=$T -o $D/gs.cu || exit 1
  $TILEC $SRC/test/CodeGen/Inputs/grid_sync.tile --target=$T -D N=8388608 \
    -D blocks=8192 -D threads=1024 -o $D/gs_big.cu || exit 1
  sed -i 's/grid_sum/grid_sum_big/g' $D/gs_big.cu $D/gs_big.h
  $TILEC $SRC/test/CodeGen/Inputs/atomic_prev.tile --target=$T -o $D/ap.cu || exit 1
  $TILEC $EX/rand/rand_uint.py --target=$T -o $D/rand_uint.cu || exit 1
  G="-gencode arch=compute_90a,code=sm_90a"
  [ $T = sm_80 ] && G="-gencode arch=compute_80,code=compute_80"
  for F in rng gs gs_big ap rand_uint; do
    $NVCC -std=c++17 $G -I $RT -I $D -c $D/$F.cu -o $D/$F.o || exit 1
  done
  $NVCC -std=c++17 -gencode arch=compute_90a,code=sm_90a -I $RT -I $D \
    $SRC/bench/prims3_device.cu $D/*.o -o $D/check || exit 1
  echo "== $T code"
  $D/check
done
echo "== compute-sanitizer memcheck, sm_90 code"
compute-sanitizer --tool memcheck $W/sm_90/check 2>&1 | tail -4
