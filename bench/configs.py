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
"""

from dataclasses import dataclass, field
from typing import Dict, List


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


def B(label, runs=None, tags=(), **defines):
    return Build(label, defines, runs or [Run()], tuple(tags))


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
        *[B(f"{n} {m}x{nn}x{k} f16", M=m, N=nn, K=k, tags=["paper"])
          for n, m, nn, k in PAPER_GEMM],
        B("4096^3 bf16", M=4096, N=4096, K=4096, dtype="bfloat16"),
        B("1000x1000x1024 f16", M=1000, N=1000, K=1024, tags=["ragged"]),
    ],
    "gemm_dynamic": [
        B("N=K=1024 f16", runs=[R("M=1024", M=1024), R("M=1", M=1), R("M=77", M=77),
                                R("M=1000", M=1000)], tags=["ragged"]),
        B("N=K=4096 f16", N=4096, K=4096, runs=[R("M=4096", M=4096), R("M=4097", M=4097)]),
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
        B("8x32x4096x128", ),
        B("8x32x4096x128 causal", is_causal=True),
        *[B(f"{n} b{b} h{h} s{s} d{d}{' causal' if c else ''}", batch=b, heads=h,
            seq_len=s, dim=d, is_causal=c, tags=["paper"]) for n, b, h, s, d, c in PAPER_FA],
    ],
    "flashmla_decode": [
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
        B("8192x8192 sum dim1", M=8192, N=8192),
        B("8192x8192 max dim1", M=8192, N=8192, op="max"),
        B("8192x8192 min dim0", M=8192, N=8192, op="min", dim=0),
        B("8192x8192 absmax dim1", M=8192, N=8192, op="absmax"),
        B("8192x8192 abssum dim0", M=8192, N=8192, op="abssum", dim=0),
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
        B("1024x1024x8192 split4"),
        B("1024x1024x8192 tile atomic", tile_atomic=True),
        B("4096x4096x16384 split8", M=4096, N=4096, K=16384, split_k=8),
    ],
    "topk": [
        B("320x128 k6 f32"),
        B("65536x128 k6 f32", M=65536),
        B("300x128 k8 f32", M=300, k=8, tags=["ragged"]),
    ],
}
