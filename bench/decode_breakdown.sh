#!/bin/sh
# decode_breakdown.sh TILEC OUTDIR BATCH SEQLEN SPLIT [-D name=value ...]:
# generates flash_decoding for one shape (32 query / 8 KV heads, d=128) and
# builds bench/decode_breakdown.cu around it as OUTDIR/decode_b*_s*_split*
# (sm_90a). Run it for the time breakdown, or with any argument for one
# call (for ncu).
set -e
tilec=$1 out=$2 b=$3 s=$4 split=$5
shift 5
root=$(cd "$(dirname "$0")/.." && pwd)
name=decode_b${b}_s${s}_split${split}
mkdir -p "$out/$name.src"
"$tilec" "$root/examples/flash_decoding.tile" --emit=cuda --target=sm_90 \
  -D batch="$b" -D seqlen_kv="$s" -D num_split="$split" "$@" -o "$out/$name.src/fd.cu"
nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a \
  -I "$root/runtime" -I "$out/$name.src" -include "$out/$name.src/fd.cu" \
  -DBATCH="$b" -DSEQLEN="$s" -DSPLIT="$split" -DHEADS=32 -DHEAD_KV=8 -DDIM=128 \
  -o "$out/$name" "$root/bench/decode_breakdown.cu"
