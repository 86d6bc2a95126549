#!/bin/sh
# decode_breakdown.sh TILEC OUTDIR BATCH SEQLEN SPLIT [-D name=value ...]:
# generates flash_decoding for one shape (32 query / 8 KV heads, d=128) and
# builds bench/decode_breakdown.cu around it as OUTDIR/decode_b*_s*_split*
# (sm_90a). Run it for the time breakdown, or with any argument for one
# call (for ncu). With RAGGED=1 in the environment the cached lengths are
# bench/refs.py's decode_lengths (entry 0 full, the others random), as in
# bench/run.py's timing, and the program's name ends in _ragged.
set -e
tilec=$1 out=$2 b=$3 s=$4 split=$5
shift 5
root=$(cd "$(dirname "$0")/.." && pwd)
name=decode_b${b}_s${s}_split${split}${RAGGED:+_ragged}
mkdir -p "$out/$name.src"
"$tilec" "$root/examples/flash_decoding.tile" --emit=cuda --target=sm_90 \
  -D batch="$b" -D seqlen_kv="$s" -D num_split="$split" "$@" -o "$out/$name.src/fd.cu"
# The kernels' grids (the manifest's) and, with RAGGED, the lengths, in a
# header: nvcc would split -D values at their commas.
python3 - "$out/$name.src" "$b" "$s" "${RAGGED:-}" <<'EOF'
import json, random, sys
src, b, s, ragged = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
launches = json.load(open(src + "/fd.json"))["kernels"][0]["launches"]
lines = ["#define %s_GRID (%s)" % (n, ", ".join(l["grid"]))
         for n, l in zip(("SPLIT", "COMBINE"), launches)]
if ragged:
    rng = random.Random(3000 + b * 7 + s)  # bench/refs.py's decode_lengths
    lens = [s] + [rng.randint(1, s) for _ in range(b - 1)]
    lines.append("#define LENGTHS {%s}" % ", ".join(map(str, lens)))
open(src + "/shape.h", "w").write("\n".join(lines) + "\n")
EOF
nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a \
  -I "$root/runtime" -I "$out/$name.src" -include "$out/$name.src/fd.cu" \
  -include "$out/$name.src/shape.h" \
  -DBATCH="$b" -DSEQLEN="$s" -DSPLIT="$split" -DHEADS=32 -DHEAD_KV=8 -DDIM=128 \
  -o "$out/$name" "$root/bench/decode_breakdown.cu"
