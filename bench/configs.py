"""The configurations bench/run.py builds and runs for every example.

CONFIGS maps an example (examples/<stem>.tile) to a list of builds. A build is
one tilec compilation: a label, the -D values passed to tilec (the factory's
defaults fill in the rest) and its runs. A run is one call of the compiled
launcher: a label and the values of the T.dynamic symbols (static kernels
have one run with none).

Tags: "ragged" marks shapes that are not multiples of the tile sizes (the
guards the compiler inserts are what is tested); "paper" marks the shapes of
the TileLang paper's benchmark (Appendix A: GEMV V0-V7, GEMM M0-M7,
FlashAttention FA0-FA4); "check" marks builds too small to time meaningfully
(they are checked, and timed only with --time-all). The first build of every
example is the one --quick runs.

Tile candidates: a build with `tiles` is planned once per candidate tile
configuration (a name in TILES: block sizes, stages, threads), its -D values
overriding the build's; the candidates of one build compete, and the tables
show the fastest with its name. --tiles NAME,NAME (or "all") replaces every
build's own candidate list, so new tile configurations can be tried without
editing this file. `goal` is the target ratio of tilec's TFLOP/s to the torch
baseline's (baseline time / tilec time) reported for the build: each
paper GEMM shape's ">= 0.9x cuBLAS" (the geomean over M0-M7 aims at 1.0x).
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional


@dataclass
class Run:
    label: str = ""
    symbols: Dict[str, int] = field(default_factory=dict)


@dataclass
class Build:
    label: str
    defines: Dict[str, object] = field(default_factory=dict)
    runs: List[Run] = field(default_factory=lambda: [Run()])
    tags: tuple = ()
    tiles: tuple = ()
    goal: Optional[float] = None


def B(label, runs=None, tags=(), tiles=(), goal=None, **defines):
    return Build(label, defines, runs or [Run()], tuple(tags), tuple(tiles), goal)


def R(label, **symbols):
    return Run(label, symbols)


# TileLang paper, Appendix A, Table 2: GEMV shapes (m = 1) as (n, k).
PAPER_GEMV = [("V0", 16384, 16384), ("V1", 43008, 14336), ("V2", 14336, 14336),
              ("V3", 57344, 14336), ("V4", 14336, 57344), ("V5", 9216, 9216),
              ("V6", 36864, 9216), ("V7", 9216, 36864)]
# Table 2: GEMM shapes (m, n, k).
PAPER_GEMM = [("M0", 4096, 1024, 8192), ("M1", 4096, 8192, 8192),
              ("M2", 4096, 28672, 8192), ("M3", 4096, 8192, 28672),
              ("M4", 8192, 1024, 8192), ("M5", 8192, 8192, 8192),
              ("M6", 8192, 28672, 8192), ("M7", 8192, 8192, 28672)]
# Table 3: FlashAttention shapes (batch, heads, seq_len, head_dim, causal).
PAPER_FA = [("FA0", 1, 32, 512, 128, True), ("FA1", 1, 32, 512, 128, False),
            ("FA2", 1, 32, 1024, 128, True), ("FA3", 1, 32, 1024, 128, False),
            ("FA4", 1, 32, 4096, 128, True)]


# Tile configurations for tensor-core (mma.sync) GEMMs on H100/H200, named
# blockMxblockNxblockK/stages/threads, in families by input dtype (a
# --tiles list applies to a build the names of its family). Shared memory
# per block is num_stages * (block_M + block_N) * block_K * element bytes,
# and tilec rejects more than the target allows (sm_80: 163 KiB, also when
# the sm_80 code runs on an H200; sm_90: 227 KiB): fp16 128x256x32/s4 takes
# 96 KiB, 256x128x64/s3 144 KiB; int8 256x128x128/s3 144 KiB.
TILES: Dict[str, Dict[str, int]] = {}
TILE_FAMILY: Dict[str, str] = {}


def _tile(family, block_m, block_n, block_k, stages, threads, min_blocks=0):
    name = f"{block_m}x{block_n}x{block_k}/s{stages}/t{threads}"
    if min_blocks:
        name += f"/b{min_blocks}"
    if family != "fp16":
        name = f"{family}:{name}"
    TILES[name] = dict(block_M=block_m, block_N=block_n, block_K=block_k,
                       num_stages=stages, threads=threads)
    if min_blocks:
        TILES[name]["min_blocks"] = min_blocks
    TILE_FAMILY[name] = family
    return name


T128x128S4 = _tile("fp16", 128, 128, 32, 4, 128)
_tile("fp16", 128, 256, 32, 3, 256)
_tile("fp16", 256, 128, 32, 3, 256)
_tile("fp16", 128, 256, 32, 4, 256)
# Further fp16 candidates, used only when named with --tiles (or "all").
T128x128K64 = _tile("fp16", 128, 128, 64, 3, 128)
T256x128K64 = _tile("fp16", 256, 128, 64, 3, 256)
T128x256K64 = _tile("fp16", 128, 256, 64, 3, 256)
# Four stages of 128x256x64 fit the H200's shared memory with TMA (the
# mbarrier ring needs no extra buffers).
T128x256K64S4 = _tile("fp16", 128, 256, 64, 4, 256)
_tile("fp16", 64, 128, 32, 4, 128)
# Three 4-warp blocks per SM (registers capped by __launch_bounds__), and
# 8-warp 128x128 blocks (64x32 warp tiles).
T128x128S4B3 = _tile("fp16", 128, 128, 32, 4, 128, min_blocks=3)
_tile("fp16", 128, 128, 64, 3, 128, min_blocks=3)
_tile("fp16", 128, 128, 32, 4, 256)
_tile("fp16", 128, 256, 32, 4, 256)
# int8: block_K of at least 64 (64-byte rows).
T8_128x128 = _tile("int8", 128, 128, 64, 3, 128)
T8_128x256 = _tile("int8", 128, 256, 64, 3, 256)
T8_256x128K128 = _tile("int8", 256, 128, 128, 3, 256)
_tile("int8", 128, 256, 128, 3, 256)
# fp8 (wgmma k32, sm_90): block_K 128 is one 128-byte swizzled row; a
# stage of 128x256x128 takes 48 KiB, so four fit.
T8F_128x256S4 = _tile("fp8", 128, 256, 128, 4, 256)
T8F_128x256S3 = _tile("fp8", 128, 256, 128, 3, 256)
T8F_256x128S3 = _tile("fp8", 256, 128, 128, 3, 256)
T8F_128x128S4 = _tile("fp8", 128, 128, 128, 4, 128)
T8F_128x128S3 = _tile("fp8", 128, 128, 128, 3, 128)
T8F_256x128S4 = _tile("fp8", 256, 128, 128, 4, 256)
# 128x256x128/s4 leads on six shapes, 256x128x128/s4 on M2 (H200,
# 2026-11-26); 128x128 blocks of one warpgroup trail by 10-15%.
_FP8_TILES = (T8F_128x256S4, T8F_256x128S4, T8F_128x256S3)

# The per-shape candidates for the paper's GEMMs, from `--tiles all` runs on
# the H200 (2026-11-22): four-warp 128x128 blocks (two per SM, 64x64 warp
# tiles) lead on every shape; 256x128x64 with eight warps (one block per
# SM) comes close on the K = 28672 shapes. 128x256/256x128 with block_K 32
# trail by 10-20%. With wgmma (sm_90, 2026-11-25) 128x256x64 over two
# warpgroups (two m64n256 tiles) leads on every shape
# (bench/results/2026-11-25-h200-wgmma-gemm-tiles.txt); with TMA loads
# (2026-11-26) 128x256x64 with three or four stages leads on every shape
# (bench/results/2026-11-26-h200-tma-*.txt).
_PAPER_TILES = (T128x128S4, T128x128K64, T256x128K64, T128x256K64,
                T128x256K64S4)
PAPER_GEMM_TILES = {n: _PAPER_TILES
                    for n in ("M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7")}
GEMM_GOAL = 0.9  # per-shape floor of tilec GEMM / cuBLAS on the paper's shapes
FP8_GOAL = 0.9  # the same against torch._scaled_mm (fp8 e4m3)

# Tile configurations for flash_attention, named attn:blockMxblockN/stages/
# threads (family "attn"). 128x64/s1/t128 is the example's default (one
# warpgroup, FlashAttention-2 style). With 256 threads on sm_90 (two
# consumer warpgroups of 64 query rows, plus the producer warpgroup tilec
# adds for TMA) and two or more K/V stages, overlap-wgmma-pair issues
# S = Q K^T of one step with O += P V of the step before and
# pingpong-warpgroups alternates the two warpgroups: FlashAttention-3's
# schedule. 128x128/s3/t256 (FlashAttention-3's tile for head_dim 128;
# 225 KiB: O_shared reuses Q_shared's bytes) leads on most shapes,
# 128x64/s3/t256 on the shortest (bench/results/2026-11-26-h200-attn-fwd-*).
def _attn_tile(block_m, block_n, stages, threads):
    name = f"attn:{block_m}x{block_n}/s{stages}/t{threads}"
    TILES[name] = dict(block_M=block_m, block_N=block_n, num_stages=stages,
                       threads=threads)
    TILE_FAMILY[name] = "attn"
    return name


ATTN_TILES = (_attn_tile(128, 64, 1, 128), _attn_tile(128, 128, 3, 256),
              _attn_tile(128, 64, 3, 256), _attn_tile(128, 128, 2, 256))
# Further candidates, used only when named with --tiles (or "all").
_attn_tile(64, 128, 2, 128)
_attn_tile(128, 64, 2, 256)
_attn_tile(128, 64, 4, 256)
_attn_tile(128, 128, 1, 256)

# Tile configurations for reduce, named red:blockMxblockN/threads (family
# "red"). The example's 64x128/t128 gives 8192x8192 only 128 blocks (64 for
# dim=0): too few bytes in flight per SM for a streaming kernel. The others
# give 256-1024 blocks; with 16-byte fp16 loads (8 elements per thread and
# run), rows of at most 256 elements stay within one warp for dim=1.
def _reduce_tile(block_m, block_n, threads):
    name = f"red:{block_m}x{block_n}/t{threads}"
    TILES[name] = dict(block_M=block_m, block_N=block_n, threads=threads)
    TILE_FAMILY[name] = "red"
    return name


REDUCE_ROW_TILES = (_reduce_tile(64, 128, 128), _reduce_tile(16, 256, 128),
                    _reduce_tile(32, 256, 256), _reduce_tile(16, 512, 128))
REDUCE_COL_TILES = (_reduce_tile(64, 128, 128), _reduce_tile(256, 32, 256),
                    _reduce_tile(128, 64, 256), _reduce_tile(64, 64, 128))


# Operand layouts of gemm_transpose: (name, trans_A, trans_B).
LAYOUTS = [("NN", False, False), ("NT", False, True), ("TN", True, False),
           ("TT", True, True)]
POLICIES = ["Square", "FullRow", "FullCol"]


def _transpose_checks():
    """Every layout in fp16, bf16 and tf32, rotating through the policies and
    pipeline depths so that each appears with each dtype."""
    builds = []
    for d, (dt, short) in enumerate([("float16", "f16"), ("bfloat16", "bf16"),
                                     ("float32", "tf32")]):
        for i, (name, ta, tb) in enumerate(LAYOUTS):
            policy = POLICIES[(i + d) % 3]
            stages = 1 + (i + d) % 4
            builds.append(B(f"{short} {name} {policy} s{stages}", trans_A=ta, trans_B=tb,
                            dtype=dt, policy=policy, num_stages=stages, tags=["check"]))
    return builds


CONFIGS: Dict[str, List[Build]] = {
    "elementwise_add": [
        B("4096x4096 f16"),
        B("8192x8192 f16", M=8192, N=8192),
        B("8192x8192 bf16", M=8192, N=8192, in_dtype="bfloat16", out_dtype="bfloat16"),
        B("4096x4096 f16->f32", in_dtype="float16", out_dtype="float32"),
        B("1000x3000 f16", M=1000, N=3000, tags=["ragged"]),
    ],
    "gemm": [
        B("1024^3 f16", tags=["check"]),
        *[B(f"{n} {m}x{nn}x{k} f16", M=m, N=nn, K=k, tags=["paper"],
            tiles=PAPER_GEMM_TILES[n], goal=GEMM_GOAL) for n, m, nn, k in PAPER_GEMM],
        B("4096^3 bf16", M=4096, N=4096, K=4096, dtype="bfloat16",
          tiles=_PAPER_TILES),
        *[B(f"{n} {m}x{nn}x{k} bf16", M=m, N=nn, K=k, dtype="bfloat16",
            tags=["paper"], tiles=PAPER_GEMM_TILES[n], goal=GEMM_GOAL)
          for n, m, nn, k in PAPER_GEMM],
        B("1024^3 tf32", dtype="float32", tags=["check"]),
        B("1024^3 f16 s1", num_stages=1, tags=["check"]),
        B("1024^3 f16 128x256x32 s4 t256", block_N=256, num_stages=4, threads=256,
          tags=["check"]),
        B("1000x1000x1024 f16", M=1000, N=1000, K=1024, tags=["ragged"]),
        B("16x128x64 f16 (M under one tile)", M=16, N=128, K=64, tags=["ragged"]),
        B("300x512x448 f16 128x256x64 s4 t256", M=300, N=512, K=448, block_N=256,
          block_K=64, num_stages=4, threads=256, tags=["ragged"]),
        B("129x256x192 bf16", M=129, N=256, K=192, dtype="bfloat16", tags=["ragged"]),
    ],
    "gemm_transpose": [
        B("f16 NN Square s3", tags=["check"]),
        *_transpose_checks()[1:],
        B("f16 NT 1000x999x1000", M=1000, N=999, K=1000, trans_B=True, tags=["ragged"]),
        B("bf16 TN 777x1000x520 FullRow", M=777, N=1000, K=520, trans_A=True,
          dtype="bfloat16", policy="FullRow", tags=["ragged"]),
        B("f16 TT 64x64x32 s2", trans_A=True, trans_B=True, block_M=64, block_N=64,
          num_stages=2, tags=["check"]),
        B("f16 NT 256x128x64 s3 t256 FullCol", trans_B=True, block_M=256, block_N=128,
          block_K=64, num_stages=3, threads=256, policy="FullCol", tags=["check"]),
        *[B(f"4096^3 f16 {name}", M=4096, N=4096, K=4096, trans_A=ta, trans_B=tb,
            tiles=(T128x128S4,)) for name, ta, tb in LAYOUTS[1:]],
    ],
    "gemm_int8": [
        B("1024^3 i8", tags=["check"]),
        B("1024^3 u8 s2", dtype="uint8", num_stages=2, tags=["check"]),
        B("1024^3 i8 256x128x128 s3 t256", block_M=256, block_K=128, num_stages=3,
          threads=256, tags=["check"]),
        B("1024^3 i8 s4", num_stages=4, tags=["check"]),
        B("1000x1000x1024 i8 s1", M=1000, N=1000, K=1024, num_stages=1, tags=["ragged"]),
        B("777x1000x1000 i8", M=777, N=1000, K=1000, tags=["ragged"]),
        B("4096^3 i8", M=4096, N=4096, K=4096, tiles=(T8_128x256, T8_128x128)),
        B("8192^3 i8", M=8192, N=8192, K=8192, tiles=(T8_128x256, T8_256x128K128)),
    ],
    "gemm_fp8": [
        B("1024^3 e4m3", tags=["check"]),
        B("1024^3 e5m2 f16 out s2", dtype="float8_e5m2", out_dtype="float16",
          num_stages=2, tags=["check"]),
        B("1000x1000x1024 e4m3", M=1000, N=1000, K=1024, tags=["ragged"]),
        B("1024^3 e4m3 128x256x128 s4 t256", block_N=256, num_stages=4, threads=256,
          tags=["check"]),
        *[B(f"{n} {m}x{nn}x{k} e4m3", M=m, N=nn, K=k, tags=["paper"], tiles=_FP8_TILES,
            goal=FP8_GOAL) for n, m, nn, k in PAPER_GEMM],
    ],
    "gemm_epilogue": [
        B("1024^3 f16 bias+relu", tags=["check"]),
        B("1024^3 f16 bias only", with_relu=False, tags=["check"]),
        B("1024^3 bf16 bias+relu s2", dtype="bfloat16", num_stages=2, tags=["check"]),
        B("1000x1000x1000 f16 bias+relu", M=1000, N=1000, K=1000, tags=["ragged"]),
        B("4096^3 f16 bias+relu", M=4096, N=4096, K=4096, tiles=(T128x128S4,)),
    ],
    "gemm_rs": [
        B("1024^3 f16 rs s2", tags=["check"]),
        B("1024^3 f16 ss s3", placement="ss", num_stages=3, tags=["check"]),
        B("1024^3 f16 sr s1", placement="sr", num_stages=1, tags=["check"]),
        B("1024^3 f16 rr s4", placement="rr", num_stages=4, tags=["check"]),
        B("1024^3 f16 rs NT s3", trans_B=True, num_stages=3, tags=["check"]),
        B("1024^3 bf16 sr NT s2", placement="sr", trans_B=True, dtype="bfloat16",
          tags=["check"]),
        B("1024^3 bf16 rr NT s1", placement="rr", trans_B=True, dtype="bfloat16",
          num_stages=1, tags=["check"]),
        B("1000x1000x1000 f16 rr NT", placement="rr", trans_B=True, M=1000, N=1000,
          K=1000, tags=["ragged"]),
        B("1000x1000x1000 f16 rs", M=1000, N=1000, K=1000, tags=["ragged"]),
        B("4096^3 f16 rs", M=4096, N=4096, K=4096, tiles=(T128x128S4,)),
    ],
    "gemm_dynamic": [
        B("N=K=1024 f16", runs=[R("M=1024", M=1024), R("M=1", M=1), R("M=77", M=77),
                                R("M=1000", M=1000)], tags=["ragged"]),
        B("N=K=4096 f16", N=4096, K=4096, runs=[R("M=4096", M=4096), R("M=4097", M=4097)],
          tiles=_PAPER_TILES),
        B("N=1024 dynamic K", dynamic_k=True,
          runs=[R("M=512 K=1024", M=512, K=1024), R("M=300 K=1000", M=300, K=1000)],
          tags=["ragged"]),
    ],
    "gemv": [
        B("4096x4096 f16", tags=["check"]),
        *[B(f"{n} {nn}x{k} f16", N=nn, K=k, tags=["paper"]) for n, nn, k in PAPER_GEMV],
        B("1000x2048 f16", N=1000, K=2048, tags=["ragged"]),
    ],
    "bucketize": [
        B("1M values, 1024 bounds binary"),
        B("16M values, 1024 bounds binary", num_values=1 << 24),
        B("1M values, 64 bounds linear", method="linear", num_boundaries=64),
        B("1000003 values f16", num_values=1000003, dtype="float16", tags=["ragged"]),
    ],
    "cumsum": [
        B("2x8192x32 f16->f32"),
        B("8x8192x32 reverse", batch=8, reverse=True),
        B("8x8192x32 fragment", batch=8, use_fragment=True),
        B("2x1000x32 f16->f32", seq_len=1000, tags=["ragged"]),
    ],
    "dequant_gemm": [
        B("1024^3 fp4", tags=["check"]),
        B("1024^3 uint4", source_format="uint4", tags=["check"]),
        B("4096^3 fp4", M=4096, N=4096, K=4096),
        B("16x8192x8192 fp4", M=16, N=8192, K=8192, block_M=16),
    ],
    "flash_attention": [
        B("1x8x512x64", batch=1, heads=8, seq_len=512, dim=64, tags=["check"]),
        B("b2 h4 s256 d64", batch=2, heads=4, seq_len=256, dim=64, tags=["check"]),
        B("b2 h4 s256 d64 causal", batch=2, heads=4, seq_len=256, dim=64, is_causal=True,
          tags=["check"]),
        B("b2 h8 s512 d128", batch=2, heads=8, seq_len=512, dim=128, tags=["check"]),
        B("b2 h8 s1024 d128 causal", batch=2, heads=8, seq_len=1024, dim=128,
          is_causal=True, tags=["check"]),
        B("b2 h6 s1024 d64 causal 64x64 s2", batch=2, heads=6, seq_len=1024, dim=64,
          is_causal=True, block_M=64, block_N=64, num_stages=2, tags=["check"]),
        B("b2 h4 s512 d128 causal bf16", batch=2, heads=4, seq_len=512, dim=128,
          is_causal=True, dtype="bfloat16", tags=["check"]),
        B("b2 h8 s768 d128 128x128 t256", batch=2, heads=8, seq_len=768, dim=128,
          block_M=128, block_N=128, threads=256, tags=["check"]),
        B("b2 h8 s768 d128 128x128 s2 t256", batch=2, heads=8, seq_len=768, dim=128,
          block_M=128, block_N=128, num_stages=2, threads=256, tags=["check"]),
        # 192 tiles: with --persistent, 60 of the 132 blocks walk two.
        B("b3 h8 s1024 d128 128x128 s3 t256", batch=3, heads=8, seq_len=1024, dim=128,
          block_M=128, block_N=128, num_stages=3, threads=256, tags=["check"]),
        B("b2 h8 s1024 d128 causal 128x128 s2 t256", batch=2, heads=8, seq_len=1024,
          dim=128, is_causal=True, block_M=128, block_N=128, num_stages=2, threads=256,
          tags=["check"]),
        B("b2 h4 s512 d128 causal bf16 64x128 s2", batch=2, heads=4, seq_len=512, dim=128,
          is_causal=True, dtype="bfloat16", block_M=64, block_N=128, num_stages=2,
          tags=["check"]),
        B("8x32x4096x128", tiles=ATTN_TILES),
        B("8x32x4096x128 causal", is_causal=True, tiles=ATTN_TILES),
        *[B(f"{n} b{b} h{h} s{s} d{d}{' causal' if c else ''}", batch=b, heads=h,
            seq_len=s, dim=d, is_causal=c, tags=["paper"], tiles=ATTN_TILES)
          for n, b, h, s, d, c in PAPER_FA],
    ],
    # The FlashAttention-3 schedule stated by hand (order/stage/group): its
    # default tile is 128x128/s2/t256; the others check a one-warpgroup
    # block (sm_90: thread 0 loads the TMA ring), three stages, bf16 and
    # causal masks.
    "flash_attention_schedule": [
        B("b2 h8 s768 d128", batch=2, heads=8, seq_len=768, dim=128, tags=["check"]),
        B("b2 h8 s1024 d128 causal", batch=2, heads=8, seq_len=1024, dim=128,
          is_causal=True, tags=["check"]),
        B("b2 h4 s256 d64 64x64 s2 t128", batch=2, heads=4, seq_len=256, dim=64,
          block_M=64, block_N=64, num_stages=2, threads=128, tags=["check"]),
        B("b2 h4 s320 d64 128x64 s3 causal bf16", batch=2, heads=4, seq_len=320, dim=64,
          block_N=64, num_stages=3, is_causal=True, dtype="bfloat16", tags=["check"]),
        B("8x32x4096x128"),
    ],
    "gqa_attention": [
        B("b2 h8/2 s256 d64", batch=2, heads=8, head_kv=2, seq_len=256, dim=64,
          tags=["check"]),
        B("b2 h8/2 s200 d64 causal", batch=2, heads=8, head_kv=2, seq_len=200, dim=64,
          is_causal=True, tags=["check", "ragged"]),
        B("b1 h32/8 s1000 d128", batch=1, seq_len=1000, tags=["check", "ragged"]),
        B("b1 h32/8 s1000 d128 causal", batch=1, seq_len=1000, is_causal=True,
          tags=["check", "ragged"]),
        # 192 tiles: with --persistent, 60 of the 132 blocks walk two.
        B("b3 h8/2 s1000 d128 128x128 s3 t256", batch=3, heads=8, head_kv=2, seq_len=1000,
          dim=128, block_M=128, block_N=128, num_stages=3, threads=256,
          tags=["check", "ragged"]),
        # Timed on flash_attention's tile candidates (the example's default
        # is the sm_80 tile).
        B("b1 h32/8 s8192 d128", batch=1, seq_len=8192, tiles=ATTN_TILES),
        B("b1 h32/8 s8192 d128 causal", batch=1, seq_len=8192, is_causal=True,
          tiles=ATTN_TILES),
        B("b8 h32/8 s1024 d128", seq_len=1024, tiles=ATTN_TILES),
        B("b8 h32/8 s4096 d128 causal", is_causal=True, tiles=ATTN_TILES),
    ],
    # Sequence lengths: refs.varlen_lengths (random, fixed by the shape, the
    # first one max_seqlen_q; keys as many as queries unless total_kv differs).
    "varlen_attention": [
        B("4 seqs <=256 h8/2 d64", batch=4, total_q=700, total_kv=700, max_seqlen_q=256,
          heads=8, head_kv=2, dim=64, tags=["check", "ragged"]),
        B("4 seqs <=256 h8/2 d64 causal", batch=4, total_q=700, total_kv=700,
          max_seqlen_q=256, heads=8, head_kv=2, dim=64, is_causal=True,
          tags=["check", "ragged"]),
        B("5 seqs q<=200 k!=q h8/2 d128 causal", batch=5, total_q=600, total_kv=900,
          max_seqlen_q=200, heads=8, head_kv=2, is_causal=True, tags=["check", "ragged"]),
        B("8 seqs 16k tokens <=4096 h32/8 d128"),
        B("8 seqs 16k tokens <=4096 h32/8 d128 causal", is_causal=True),
    ],
    # KV lengths per batch entry: refs.decode_lengths (the first entry full,
    # the others random in [1, seqlen_kv], fixed by the shape).
    "flash_decoding": [
        B("b4 h8/2 s1000 d64 split4", batch=4, heads=8, head_kv=2, seqlen_kv=1000, dim=64,
          num_split=4, tags=["check", "ragged"]),
        B("b3 h32/8 s700 d128 split1", batch=3, seqlen_kv=700, num_split=1,
          tags=["check", "ragged"]),
        # More blocks than tiles: some runs are empty.
        B("b3 h32/8 s700 d128 split32", batch=3, seqlen_kv=700, num_split=32,
          tags=["check", "ragged"]),
        # num_split: blocks per KV head (two per SM: 32), fewer for a short
        # batch-1 cache, whose time is fixed costs.
        B("b1 h32/8 s4096 split16", batch=1, seqlen_kv=4096, num_split=16),
        B("b1 h32/8 s8192 split16", batch=1, seqlen_kv=8192, num_split=16),
        B("b1 h32/8 s16384 split16", batch=1, seqlen_kv=16384, num_split=16),
        B("b1 h32/8 s32768 split16", batch=1, seqlen_kv=32768, num_split=16),
        B("b1 h32/8 s32768 split32", batch=1, seqlen_kv=32768, num_split=32),
        B("b4 h32/8 s4096 split32", batch=4, seqlen_kv=4096, num_split=32),
        B("b4 h32/8 s8192 split32", batch=4, seqlen_kv=8192, num_split=32),
        B("b4 h32/8 s16384 split32", batch=4, seqlen_kv=16384, num_split=32),
        B("b4 h32/8 s32768 split32", batch=4, seqlen_kv=32768, num_split=32),
        B("b16 h32/8 s8192 split32", batch=16, seqlen_kv=8192, num_split=32),
        B("b64 h32/8 s4096 split32", batch=64, seqlen_kv=4096, num_split=32),
        B("b64 h32/8 s16384 split32", batch=64, seqlen_kv=16384, num_split=32),
    ],
    "flash_attention_bwd": [
        B("b1 h2 s256 d64", batch=1, heads=2, seq_len=256, dim=64, tags=["check"]),
        B("b1 h2 s256 d64 causal", batch=1, heads=2, seq_len=256, dim=64, is_causal=True,
          tags=["check"]),
        B("b2 h2 s200 d64 causal", batch=2, heads=2, seq_len=200, dim=64, is_causal=True,
          tags=["check", "ragged"]),
        B("b1 h4 s520 d128", batch=1, heads=4, seq_len=520, tags=["check", "ragged"]),
        # The one-warpgroup tile (sm_80's default) on every target.
        B("b2 h2 s200 d64 causal 64x64 t128", batch=2, heads=2, seq_len=200, dim=64,
          is_causal=True, block_M=64, threads=128, tags=["check", "ragged"]),
        B("b1 h4 s520 d128 64x64 t128", batch=1, heads=4, seq_len=520, block_M=64,
          threads=128, tags=["check", "ragged"]),
        # Two consumer warpgroups of 64 keys each (sm_90's default; on sm_80
        # the d128 tile needs 181 KB of shared memory).
        B("b2 h2 s200 d64 causal 128x64 t256", batch=2, heads=2, seq_len=200, dim=64,
          is_causal=True, block_M=128, threads=256, tags=["check", "ragged"]),
        B("b1 h4 s520 d128 128x64 t256", batch=1, heads=4, seq_len=520, block_M=128,
          threads=256, tags=["check", "ragged"]),
        B("b2 h16 s2048 d128 128x64 t256", batch=2, heads=16, seq_len=2048, block_M=128,
          threads=256),
        B("b2 h16 s2048 d128 causal 128x64 t256", batch=2, heads=16, seq_len=2048,
          is_causal=True, block_M=128, threads=256),
        B("b8 h32 s4096 d128 causal 128x64 t256", is_causal=True, block_M=128, threads=256),
        # The example's default tile (sm_90: 128x64 t256; sm_80: 64x64 t128).
        B("b2 h16 s2048 d128", batch=2, heads=16, seq_len=2048),
        B("b2 h16 s2048 d128 causal", batch=2, heads=16, seq_len=2048, is_causal=True),
        B("b8 h32 s4096 d128 causal", is_causal=True),
    ],
    # A paged cache (refs.mla_init: pages in a random order); KV lengths
    # per batch entry: refs.mla_lengths (all seqlen_kv; ragged shapes, whose
    # seqlen_kv is not a multiple of 64: random in [1, seqlen_kv]).
    "flashmla_decode": [
        B("b4 s1000 split4 ragged", batch=4, seqlen_kv=1000, num_split=4,
          tags=["check", "ragged"]),
        B("b3 s700 bf16 split2 ragged", batch=3, seqlen_kv=700, num_split=2,
          dtype="bfloat16", tags=["check", "ragged"]),
        B("b2 s1024 page128", batch=2, seqlen_kv=1024, page_size=128, tags=["check"]),
        B("b64 s8192 (default)"),
        B("b64 s8192 bf16", dtype="bfloat16"),
        B("b128 s4096", batch=128, seqlen_kv=4096),
        B("b128 s8192 bf16", batch=128, seqlen_kv=8192, dtype="bfloat16"),
        B("b64 s1024", batch=64, seqlen_kv=1024),
        B("b64 s2048", batch=64, seqlen_kv=2048),
        B("b128 s1024", batch=128, seqlen_kv=1024),
        B("b128 s2048 bf16", batch=128, seqlen_kv=2048, dtype="bfloat16"),
        B("b64 s4096 split2", batch=64, seqlen_kv=4096, num_split=2),
        B("b3 s700 bf16 split2 ragged n32s4", batch=3, seqlen_kv=700, num_split=2,
          dtype="bfloat16", block_N=32, num_stages=4, tags=["check", "ragged"]),
        # O rescaled at every rise of a row's maximum (the default is lazy).
        B("b4 s1000 split4 ragged rescale0", batch=4, seqlen_kv=1000, num_split=4,
          rescale_threshold=0.0, tags=["check", "ragged"]),
    ],
    # The portable T.Pipelined form (contiguous cache, every entry full).
    "flashmla_decode_pipelined": [
        B("b4 h128 s1024", batch=4, seqlen_kv=1024, tags=["check"]),
        B("b64 h128 s8192 (default)"),
        B("b128 h128 s4096 split1", batch=128, seqlen_kv=4096, num_split=1),
    ],
    "layernorm": [
        B("8192x2048 f16"),
        B("16384x4096 f16", M=16384, N=4096, block_M=1),
        B("8192x2048 bf16", dtype="bfloat16"),
        B("1001x2048 f16", M=1001, tags=["ragged"]),
    ],
    "minmax": [
        B("4096x4096 bf16"),
        B("16384x16384 bf16", M=16384, N=16384),
        B("4096x4096 f16", dtype="float16"),
        B("1000x1000 bf16", M=1000, N=1000, tags=["ragged"]),
    ],
    "reduce": [
        B("1024x1024 sum dim1", tags=["check"]),
        B("8192x8192 sum dim1", M=8192, N=8192, tiles=REDUCE_ROW_TILES),
        B("8192x8192 max dim1", M=8192, N=8192, op="max", tiles=REDUCE_ROW_TILES),
        B("8192x8192 min dim0", M=8192, N=8192, op="min", dim=0, tiles=REDUCE_COL_TILES),
        B("8192x8192 absmax dim1", M=8192, N=8192, op="absmax", tiles=REDUCE_ROW_TILES),
        B("8192x8192 abssum dim0", M=8192, N=8192, op="abssum", dim=0,
          tiles=REDUCE_COL_TILES),
        B("1000x1000 sum dim1", M=1000, N=1000, tags=["ragged"]),
    ],
    "rmsnorm": [
        B("8192x4096 f16"),
        B("8192x4096 no weight", has_weight=False),
        B("8192x4096 bf16", dtype="bfloat16"),
        B("16384x8192 f16", M=16384, N=8192),
        B("1001x4096 f16", M=1001, tags=["ragged"]),
    ],
    "softmax": [
        B("8192x1024 f16"),
        B("8192x1024 log_softmax", log_softmax=True),
        B("32768x4096 f16", M=32768, N=4096, block_M=1),
        B("8192x1024 bf16", dtype="bfloat16"),
        B("1001x1024 f16", M=1001, tags=["ragged"]),
    ],
    "splitk_gemm": [
        B("1024x1024x8192 split4", tiles=_PAPER_TILES),
        B("1024x1024x8192 tile atomic", tile_atomic=True, tiles=_PAPER_TILES),
        B("4096x4096x16384 split8", M=4096, N=4096, K=16384, split_k=8,
          tiles=_PAPER_TILES),
    ],
    "topk": [
        B("320x128 k6 f32"),
        B("65536x128 k6 f32", M=65536),
        B("300x128 k8 f32", M=300, k=8, tags=["ragged"]),
    ],
}
