#!/usr/bin/env python3
"""Check real TileLang programs, compiled unchanged by tilec, on the GPU.

    python3 bench/corpus_check.py TILELANG_CHECKOUT [--tilec PATH] [--only a,b]
                                  [--target sm_90|sm_80] [--small]
                                  [--sanitize memcheck,racecheck] [--time] [--out DIR]
                                  [--work DIR [--build-only | --reuse]]

For every case below (a file of TileLang's examples/ and one kernel of it):

  1. tilec compiles the file as it is, with the -D values its own host code
     calls the kernel with (scripts/corpus.py's call_site_defines), plus the
     case's overrides (--small: the case's small sizes, for the sanitizer);
     nvcc builds the .cu into a shared library;
  2. the launcher is called on fresh random inputs with every output
     poisoned (NaN, or a sentinel for integers), twice with different data;
  3. each output is compared in float64 with a reference: the example's own
     reference function (ref_program and friends, imported from the file
     with tilelang/tvm stubbed out, so only its torch code runs) or, where
     the file has none, the torch expression written here.

--time also times each case's launcher on its first inputs (median of
CUDA-event batches, eager launches) and prints the milliseconds.

A symbolic case compiles the file without any -D value, as a user would:
what the driver leaves symbolic stays a launcher argument, which SYMBOLS
gives. Cases of one file with the same -D values share one build. --work
keeps the builds; --build-only stops after them (on a machine without a
GPU) and --reuse runs them later.

--sanitize runs the cases again, small, in one child process per case and
named tool under compute-sanitizer, with only the case's kernels
instrumented, and records whether the tool reported anything; the children
reuse the parent's builds (--work) when the parent ran --small too. The table is printed last; results.json goes to --out.
"""

import argparse
import ctypes
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "scripts")]

from corpus import call_site_defines  # noqa: E402
from run import (Buffer, compare, gencode_for, launcher_params, poison,  # noqa: E402
                 scalar_arg, sentinel_of, shape_of)
from sanitize import SANITIZER_ERROR, kernel_filter, kernel_prefix, summary_of  # noqa: E402

STUBBED = ("tilelang", "tvm", "bitblas", "fla", "flash_attn", "iket")


#===----------------------------------------------------------------------===#
# Importing an example with TileLang stubbed out
#===----------------------------------------------------------------------===#

class _Stub:
    """Stands for anything of TileLang: attributes, calls, subscripts and
    decorators (a call with one callable returns it, so decorated functions
    stay plain Python)."""

    def __init__(self, name="stub"):
        self._name = name

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return _Stub(f"{self._name}.{key}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return _Decorated(args[0])
        return _Stub(f"{self._name}()")

    def __getitem__(self, key):
        return _Stub(f"{self._name}[]")

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)


class _Decorated:
    """A function under a TileLang decorator: still callable, and its JIT
    API (kernel.compile(...), get_profiler()) answers with stubs."""

    def __init__(self, fn):
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return _Stub(f"{self.__wrapped__.__name__}.{key}")


# What `from tilelang.<x> import *` brings into the examples.
_STAR_NAMES = ("autotune", "AutoTuner", "jit", "Profiler", "do_bench", "cached",
               "TensorSupplyType", "carver")


class _StubModule(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []
        self.__all__ = list(_STAR_NAMES)
        for n in _STAR_NAMES:
            setattr(self, n, _Stub(f"{name}.{n}"))

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        return _Stub(f"{self.__name__}.{key}")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        pass


def load_example(path: Path):
    """The example as a module whose torch code is real."""
    if not any(isinstance(f, _StubFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _StubFinder())
    spec = importlib.util.spec_from_file_location(f"example_{abs(hash(path))}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


#===----------------------------------------------------------------------===#
# Cases
#===----------------------------------------------------------------------===#

def d(t):
    return t.double()


def attention(q, k, v, causal=False, layout="bhsd"):
    """Softmax attention in float64; q/k/v in BHSD or BSHD, GQA by repeat."""
    import torch
    if layout == "bshd":
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    q, k, v = d(q), d(k), d(v)
    rep = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        mask = torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    o = torch.softmax(s, dim=-1) @ v
    return o.transpose(1, 2) if layout == "bshd" else o


class Case:
    def __init__(self, name, file, ref, kernel=None, outputs=None, small=None,
                 overrides=None, init=None, tol=None, exact=(), load=True,
                 site_defines=True, symbolic=False):
        self.name, self.file, self.ref = name, file, ref
        self.load = load              # import the example for its references
        # -D values from the driver's call sites; off where kernels of one
        # file take different values of one parameter (tilec then gives
        # each kernel its own call's values).
        self.site_defines = site_defines
        self.kernel = kernel          # manifest kernel name; first if None
        self.outputs = outputs        # outputs compared (default: all outputs)
        self.small = small or {}      # -D overrides for --small / sanitizer
        self.overrides = overrides or {}
        self.init = init or {}        # buffer name -> fn(tensor, g) filling it
        self.tol = tol or {}          # output name -> relative L2 threshold
        self.exact = set(exact)       # outputs compared exactly
        # Compiled without -D values, as a user runs tilec on the file: the
        # values stay symbolic, and SYMBOLS gives the launcher's arguments.
        self.symbolic = symbolic


def torch_softmax(x):
    import torch
    return torch.softmax(x, dim=1)


def _gemm(t, p, trans_b=False):
    b = d(t["B"])
    return {"C": d(t["A"]) @ (b.T if trans_b else b)}


def _int4_random(t, g):
    """Logical int4 values in [-8, 7], packed as the example's pack_int4:
    element 2i in the low nibble of byte i."""
    import torch
    shape = t.shape[:-1] + (t.shape[-1] * 2,)
    v = torch.randint(-8, 8, shape, generator=g, device=t.device, dtype=torch.int16)
    t.copy_(((v[..., ::2] & 0xF) | ((v[..., 1::2] & 0xF) << 4)).to(torch.uint8).view(torch.int8))


def _unpack_int4(t):
    """The logical values of packed int4 bytes, as float64."""
    import torch
    b = t.to(torch.int16) & 0xFF
    lo, hi = b & 0xF, b >> 4
    v = torch.stack([lo, hi], dim=-1).flatten(-2)
    return d(torch.where(v >= 8, v - 16, v))


def _batch_sizes(t, g):
    import torch
    t.copy_(torch.full_like(t, 64))


def _offsets(stride):
    def fill(t, g):
        import torch
        t.copy_(torch.arange(t.numel(), device=t.device, dtype=t.dtype) * stride)
    return fill


def _topk_indices(t, g):
    import torch
    idx = torch.stack([torch.randperm(1024, generator=None, device=t.device)[:t.shape[-1]]
                       for _ in range(t.shape[0] * t.shape[1])])
    t.copy_(idx.view(t.shape).to(t.dtype))


def _mask(t, g):
    import torch
    t.copy_(torch.randint(0, 2, t.shape, generator=g, device=t.device).to(t.dtype))


def _causal_block_mask(t, g):
    """Random lower-triangular block mask; block 0 always kept, so that no
    query row is left without keys."""
    import torch
    m = torch.randint(0, 2, t.shape, generator=g, device=t.device).bool()
    m[..., 0] = True
    t.copy_(m.tril().to(t.dtype))


def _block_sparse_ref(t, block):
    """Causal attention restricted to the key blocks the mask keeps."""
    import torch
    q, k, v = d(t["Q"]), d(t["K"]), d(t["V"])
    n = q.shape[2]
    keep = t["BlockSparseMask"].bool()
    full = keep.repeat_interleave(block, -1).repeat_interleave(block, -2)[..., :n, :n]
    full = full & torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return torch.softmax(s.masked_fill(~full, float("-inf")), dim=-1) @ v


def _varlen_lens(batch, which):
    """Ragged sequence lengths (queries: which=0, keys: which=1)."""
    return [(131 * i + 97 * which + 60) % 301 + 17 for i in range(batch)]


def _cu_seqlens(which):
    def fill(t, g):
        import torch
        lens = _varlen_lens(t.numel() - 1, which)
        cu = torch.tensor([0] + lens, dtype=torch.int64).cumsum(0)
        t.copy_(cu.to(device=t.device, dtype=t.dtype))
    return fill


def _varlen_symbols(p):
    lq, lk = (_varlen_lens(int(p["batch_size"]), w) for w in (0, 1))
    return {"UQ": sum(lq), "UKV": sum(lk), "max_seqlen_q": max(lq)}


def _varlen_ref(t):
    """Each sequence's queries attend to its own keys (not causal)."""
    import torch
    cq, ck = t["cu_seqlens_q"].tolist(), t["cu_seqlens_k"].tolist()
    q, k, v = d(t["Q_unpad"]), d(t["K_unpad"]), d(t["V_unpad"])
    outs = []
    for b in range(len(cq) - 1):
        qs, ks, vs = (x.transpose(0, 1) for x in (q[cq[b]:cq[b + 1]], k[ck[b]:ck[b + 1]],
                                                 v[ck[b]:ck[b + 1]]))
        s = qs @ ks.transpose(-1, -2) / math.sqrt(q.shape[-1])
        outs.append((torch.softmax(s, dim=-1) @ vs).transpose(0, 1))
    return torch.cat(outs)


def _indexer_logits(t):
    """Logits of every query row for every key (each row's key range is the
    whole of IndexK): sum over heads of relu(q . k) * weight, times the key's
    scale."""
    q, k = t["IndexQ"].float().double(), t["IndexK"].float().double()
    w, scale = d(t["Weights"]), d(t["IndexKScale"])
    s, h = w.shape
    score = q.view(s, h, -1) @ k.T
    return (score.relu() * w[:, :, None]).sum(1) * scale[None, :]


def _indexer_symbols(p):
    """seq_len query rows of 32 heads (the composite dim of IndexQ is
    seq_len * 32) against 4 * seq_len keys."""
    n = int(p["seq_len"])
    return {"seq_len": n, "seq_len_kv": 4 * n, "seq_len_x_32": 32 * n}


# The fp8 examples pick their dtype through a host helper (determine_fp8_type):
# the -D values a user would give.
_FP8_GEMM = {"M": 1024, "N": 1024, "K": 1024, "block_M": 128, "block_N": 128, "block_K": 64}

CASES = [
    Case("gemm", "gemm/example_gemm.py", lambda m, t, p: _gemm(t, p)),
    # quickstart.py runs its whole demo at import: its reference is written here.
    Case("quickstart_gemm_relu", "quickstart.py",
         lambda m, t, p: {"C": (d(t["A"]) @ d(t["B"])).relu()}, load=False),
    Case("gemm_tn_analyze", "analyze/example_gemm_analyze.py",
         lambda m, t, p: _gemm(t, p, trans_b=True)),
    Case("gemm_dynamic_mnk", "dynamic_shape/example_dynamic.py",
         lambda m, t, p: _gemm(t, p),
         overrides={"M": 1000, "N": 1000, "K": 1000}, small={"M": 100, "N": 72, "K": 96}),
    Case("elementwise_add", "elementwise/example_elementwise_add.py",
         lambda m, t, p: {"C": m.ref_program(d(t["A"]), d(t["B"]))},
         small={"M": 256, "N": 256}),
    Case("iket_elementwise", "iket/minimal.py",
         lambda m, t, p: {"C": d(t["A"]) + d(t["B"])}),
    Case("splitk_gemm", "gemm_splitk/example_tilelang_gemm_splitk.py",
         lambda m, t, p: {"C": d(t["C"]) + d(t["A"]) @ d(t["B"])},
         small={"M": 256, "N": 256, "K": 512}),
    Case("splitk_gemm_atomic_vec", "gemm_splitk/example_tilelang_gemm_splitk_vectorize_atomicadd.py",
         lambda m, t, p: {"C": d(t["C"]) + d(t["A"]) @ d(t["B"])},
         small={"M": 256, "N": 256, "K": 512}),
    Case("mha_fwd_bhsd", "flash_attention/example_mha_fwd_bhsd.py",
         lambda m, t, p: {"Output": attention(t["Q"], t["K"], t["V"], p["is_causal"] == "True")},
         small={"batch": 1, "heads": 2, "seq_q": 256, "seq_kv": 256}),
    Case("mha_fwd_bhsd_causal", "flash_attention/example_mha_fwd_bhsd.py",
         lambda m, t, p: {"Output": attention(t["Q"], t["K"], t["V"], True)},
         overrides={"is_causal": True}, small={"batch": 1, "heads": 2, "seq_q": 256, "seq_kv": 256}),
    Case("mha_fwd_bshd", "flash_attention/example_mha_fwd_bshd.py",
         lambda m, t, p: {"Output": attention(t["Q"], t["K"], t["V"], False, "bshd")},
         overrides={"batch": 2, "seq_len": 1024}, small={"batch": 1, "heads": 2, "seq_len": 256}),
    Case("gqa_fwd_bshd", "flash_attention/example_gqa_fwd_bshd.py",
         lambda m, t, p: {"Output": attention(t["Q"], t["K"], t["V"], False, "bshd")},
         overrides={"seq_len": 1024}, small={"heads": 16, "seq_len": 128}),
    Case("attention_sink_fwd", "attention_sink/example_mha_sink_fwd_bhsd.py",
         lambda m, t, p: {"Output": m.ref_program(t["Q"], t["K"], t["V"], t["Sinks"])},
         small={"heads": 2, "H": 2}),
    Case("sparse_attn_sink_v4", "deepseek_v4/sparse_attn_fwd_sm90.py",
         lambda m, t, p: {"Output": m.torch_sparse_attention(
             t["Q"], t["KV"], t["Sinks"], t["TopkIndices"], float(t["Q"].shape[-1]) ** -0.5)},
         init={"TopkIndices": _topk_indices}, tol={"Output": 2e-2},
         small={"seq_len": 32, "heads": 2}),
    Case("mamba2_chunk_scan", "linear_attention/example_mamba_chunk_scan.py",
         lambda m, t, p: {"Output": m.ref_program(*(d(t[k]) for k in
                          ("cb", "x", "dt", "dA_cumsum", "C", "prev_states", "D")))},
         overrides={"batch": 2}, small={"batch": 1, "seqlen": 512, "nheads": 4}),
    Case("mamba2_chunk_state", "linear_attention/example_mamba_chunk_state.py",
         lambda m, t, p: {"Output": m.ref_program(*(d(t[k]) for k in
                          ("B", "x", "dt", "dA_cumsum")))},
         overrides={"batch": 2}, small={"batch": 1, "seqlen": 512, "nheads": 4}),
    Case("linear_attn_fwd", "linear_attention/example_linear_attn_fwd.py",
         lambda m, t, p: dict(zip(("O", "final_state"), m.ref_program(
             d(t["Q"]), d(t["K"]), d(t["V"])))),
         init={"O": lambda t, g: t.zero_()}, small={"H": 2}),
    Case("linear_attn_fwd_symbolic", "linear_attention/example_linear_attn_fwd.py",
         lambda m, t, p: dict(zip(("O", "final_state"), m.ref_program(
             d(t["Q"]), d(t["K"]), d(t["V"])))),
         init={"O": lambda t, g: t.zero_()}, small={"H": 2}, symbolic=True),
    Case("lighting_indexer_symbolic", "deepseek_v32/fp8_lighting_indexer.py",
         lambda m, t, p: {"Logits": _indexer_logits(t)}, kernel="mqa_attn_return_logits",
         init={"CuSeqLenKS": lambda t, g: t.zero_(),
               "CuSeqLenKE": lambda t, g: t.fill_(t.shape[0] * 4)},
         overrides={"seq_len": 256}, small={"seq_len": 64}, symbolic=True, load=False),
    Case("layernorm_fwd", "norm/layernorm.py",
         lambda m, t, p: {"Y": m.ref_program(d(t["X"]), d(t["gamma"]), d(t["beta"]), 1e-5)},
         kernel="_layernorm_fwd", outputs=["Y"], small={"N": 64, "D": 1024}),
    Case("topk", "topk/example_topk.py",
         lambda m, t, p: dict(zip(("topk_gates", "topk_indices"),
                                  m.ref_program(d(t["logits"]), 6))),
         exact=("topk_indices",)),
    Case("per_token_cast_fp8", "cast/example_per_token_cast_to_fp8.py",
         lambda m, t, p: dict(zip(("X_fp8", "X_amax"), m.ref_program(t["X"]))),
         overrides={"M": 2048, "N": 4096}, small={"M": 64, "N": 512},
         tol={"X_fp8": 7e-2}),
    Case("gemm_fp8_e4m3", "gemm_fp8/example_tilelang_gemm_fp8.py",
         lambda m, t, p: _gemm(t, p, trans_b=True),
         overrides=dict(_FP8_GEMM, dtype="float8_e4m3"), small={"M": 256, "N": 256, "K": 256},
         tol={"C": 7e-2}),
    Case("gemm_fp8_e5m2", "gemm_fp8/example_tilelang_gemm_fp8.py",
         lambda m, t, p: _gemm(t, p, trans_b=True),
         overrides=dict(_FP8_GEMM, dtype="float8_e5m2"), small={"M": 256, "N": 256, "K": 256},
         tol={"C": 1.3e-1}),
    Case("gemm_fp8_2xacc", "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py",
         lambda m, t, p: _gemm(t, p, trans_b=True),
         overrides=dict(_FP8_GEMM, dtype="float8_e4m3"), small={"M": 256, "N": 256, "K": 256},
         tol={"C": 7e-2}),
    Case("flash_decoding_split", "flash_decoding/example_gqa_decode.py",
         lambda m, t, p: {"Output": m.ref_program(d(t["Q"]), d(t["K"]), d(t["V"]), t["mask"])},
         overrides={"batch": 4, "heads": 64, "groups": 1, "seqlen_kv": 4096, "dim": 128,
                    "block_N": 128, "block_H": 64, "num_split": 4, "num_stages": 2,
                    "threads": 128},
         init={"mask": _mask}, small={"batch": 1, "seqlen_kv": 512}),
    # FlashMLA's structure by hand: two consumer warpgroups split d_v, a
    # cp.async producer warpgroup, mbarriers between them.
    Case("mla_decode_ws", "deepseek_mla/example_mla_decode_ws.py",
         lambda m, t, p: {"Output": m.ref_program(d(t["Q"]), d(t["Q_pe"]), d(t["KV"]),
                                                  d(t["K_pe"]), None, None)},
         overrides={"batch": 64, "seqlen_kv": 8192}, small={"batch": 1, "seqlen_kv": 256}),
    Case("mla_decode_nosplit", "deepseek_mla/example_mla_decode.py",
         lambda m, t, p: {"Output": m.ref_program(d(t["Q"]), d(t["Q_pe"]), d(t["KV"]),
                                                  d(t["K_pe"]))},
         overrides={"batch": 64, "seqlen_kv": 8192}, small={"batch": 1, "seqlen_kv": 256}),
    Case("mla_decode_split", "deepseek_mla/example_mla_decode.py",
         lambda m, t, p: {"Output": m.ref_program(d(t["Q"]), d(t["Q_pe"]), d(t["KV"]),
                                                  d(t["K_pe"]))},
         overrides={"batch": 4, "seqlen_kv": 1024, "block_N": 32, "block_H": 32, "num_split": 4},
         small={"batch": 1, "seqlen_kv": 256}),
    # online_softmax.py runs its demo at import: its reference is written here.
    Case("online_softmax", "online_softmax/online_softmax.py",
         lambda m, t, p: {"Y": torch_softmax(d(t["X"]))}, load=False,
         overrides={"M": 2048}, small={"M": 64}),
    Case("mha_inference_combine", "flash_decoding/example_mha_inference.py",
         lambda m, t, p: {"Output": attention(t["Q"], t["K"], t["V"], False, "bshd")},
         small={"heads": 2, "seqlen_kv": 1024}),
    # tilec specializes the eager kernel's T.const names to the driver's
    # tensors ([192, 8192], 2 groups); the reference's 4 groups of 64 rows
    # are given as -D values.
    Case("grouped_gemm_fwd", "grouped_gemm/example_grouped_gemm_bwd.py",
         lambda m, t, p: {"C": _grouped_ref(t)}, kernel="grouped_gemm_fwd",
         overrides={"batch_sum": 256, "batch_count": 4, "K": 256, "N": 256},
         init={"batch_sizes": _batch_sizes, "batch_offsets": _offsets(64),
               "batch_padded_offsets": _offsets(64)}),
    # Tile operators inside T.ws role blocks (T.tma_copy as a role copy).
    Case("ws_copy_gemm_0_1", "warp_specialize/example_warp_specialize_gemm_copy_gemm_0_1.py",
         lambda m, t, p: _gemm(t, p), load=False,
         overrides={"M": 1024, "N": 1024, "K": 1024}, small={"M": 256, "N": 256, "K": 256}),
    Case("ws_copy_0_gemm_1", "warp_specialize/example_warp_specialize_gemm_copy_0_gemm_1.py",
         lambda m, t, p: _gemm(t, p), load=False, small={"M": 256, "N": 256, "K": 256}),
    Case("ws_copy_1_gemm_0", "warp_specialize/example_warp_specialize_gemm_copy_1_gemm_0.py",
         lambda m, t, p: _gemm(t, p), load=False,
         overrides={"M": 2048, "N": 2048, "K": 2048}, small={"M": 256, "N": 256, "K": 256}),
    Case("ws_softpipe_stage2", "warp_specialize/example_warp_specialize_gemm_softpipe_stage2.py",
         lambda m, t, p: _gemm(t, p), load=False,
         overrides={"M": 2048, "N": 2048, "K": 2048}, small={"M": 256, "N": 256, "K": 256}),
    # T.gemm on regions of a staged shared buffer, fed by an mbarrier
    # pipeline in a thread-split branch.
    Case("ws_barrierpipe_stage2", "warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py",
         lambda m, t, p: _gemm(t, p), load=False,
         overrides={"M": 2048, "N": 2048, "K": 2048}, small={"M": 256, "N": 256, "K": 256}),
    # A factory returning the function an AutoTuner configures.
    Case("gemm_autotune_early_stop", "gemm/example_gemm_autotune_early_stop.py",
         lambda m, t, p: _gemm(t, p, trans_b=True), load=False),
    # T.Persistent: one block per SM walks the tiles in waves.
    Case("gemm_persistent", "gemm/example_gemm_persistent.py",
         lambda m, t, p: _gemm(t, p), load=False, kernel="matmul_persistent",
         overrides={"M": 2000, "N": 2000, "K": 1024}, small={"M": 300, "N": 520, "K": 256}),
    # An `if` on a replicated block mask: the K/V copies inside it need
    # barriers, which only a uniform condition admits.
    Case("blocksparse_attn_causal", "blocksparse_attention/example_tilelang_block_sparse_attn.py",
         lambda m, t, p: {"Output": _block_sparse_ref(t, 64)}, load=False,
         init={"BlockSparseMask": _causal_block_mask},
         overrides={"batch": 2, "heads": 4, "seq_len": 512, "downsample_len": 8},
         small={"batch": 1, "heads": 1, "seq_len": 128, "downsample_len": 2}),
    # Per-sequence bounds loaded from cu_seqlens: uniform loop bounds, so
    # the K/V loop is pipelined (TMA on sm_90) despite run-time lengths.
    Case("mha_fwd_varlen", "flash_attention/example_mha_fwd_varlen.py",
         lambda m, t, p: {"Output_unpad": _varlen_ref(t)}, load=False,
         init={"cu_seqlens_q": _cu_seqlens(0), "cu_seqlens_k": _cu_seqlens(1)},
         overrides={"batch_size": 4, "heads": 8, "dim": 128, "is_causal": False},
         small={"batch_size": 2, "heads": 2, "dim": 64}),
    # T.annotate_layout of a global buffer: the postprocess reads dQ back
    # from the backward's permuted layout.
    # int4 operands, packed two per byte, on mma.sync m16n8k64 (also on sm_90).
    Case("gemm_int4", "gemm_int4/example_tilelang_gemm_int4.py",
         lambda m, t, p: {"C": _unpack_int4(t["A"]) @ _unpack_int4(t["B"]).T},
         load=False, init={"A": _int4_random, "B": _int4_random}, exact=("C",),
         small={"M": 256, "N": 256, "K": 256}),
    # float4_e2m1 outputs: stored two per byte, converted in software
    # (cvt.rn.satfinite.e2m1x2.f32 is sm_100's).
    Case("fp4_act_quant", "deepseek_v4/act_quant.py",
         lambda m, t, p: _fp4_act_quant_ref(t), load=False,
         kernel="fp4_quant_kernel", exact=("quant", "scale")),
    Case("gqa_bwd_dq_postprocess", "flash_attention/example_gqa_bwd.py",
         lambda m, t, p: {"dQ_out": _dq_unpermuted(t["dQ"])}, load=False,
         kernel="flashattn_bwd_postprocess", small={"seq_len": 128}),
    # The gemv variants of one file, each kernel with its own call's block
    # sizes (get_autotuned_kernel: its first autotune configuration):
    # SIMT split-K with shared atomics, TVM's thread all-reduce
    # (T.tvm_thread_allreduce over threadIdx.y), a T.alloc_reducer.
    *[Case(f"gemv_{k}", "gemv/example_gemv.py",
           lambda m, t, p: {"C": m.ref_program(d(t["A"]), d(t["B"]))},
           kernel=k, site_defines=False, small={"N": 256, "K": 512, "M": 256})
      for k in ("naive_gemv", "naive_splitk_gemv", "splitk_gemv", "splitk_gemv_vectorized",
                "splitk_gemv_vectorized_tvm", "get_autotuned_kernel")],
    Case("gemv_alloc_reducer", "gemv/example_gemv.py",
         lambda m, t, p: {"o": d(t["a"]) @ d(t["x"])},
         kernel="gemv_alloc_reducer", site_defines=False, small={"N": 256, "K": 512, "M": 256}),
    # fp16 x uint4 gemv, lop3 decoding of interleaved weights, fp16
    # partials combined by T.tvm_thread_allreduce over threadIdx.x.
    Case("dequant_gemv_fp16xint4", "dequantize_gemm/example_dequant_gemv_fp16xint4.py",
         lambda m, t, p: _int4_interleaved_gemv(t), load=False,
         overrides={"N": 1024, "K": 1024}, small={"N": 256, "K": 512}),
]


def _int4_interleaved_gemv(t):
    """C = A @ B^T with B decoded as the example's fast (lop3) path reads
    it: each int32 word of B holds 8 uint4 values, element e in nibble
    (e % 2) * 4 + e // 2 (the order of quantize.utils.interleave_weight,
    which decode_i4u_to_f16 undoes)."""
    import torch
    q = t["B"].contiguous().view(torch.int32)
    nibbles = [(q >> (4 * ((e % 2) * 4 + e // 2))) & 0xF for e in range(8)]
    b = torch.stack(nibbles, dim=-1).reshape(q.shape[0], -1)
    return {"C": d(t["A"]) @ d(b).T}


def _dq_unpermuted(dq):
    """dQ_out[b, l, h, d] = dQ's storage at the flat image of (b, l, h, d)
    under the example's make_dq_layout (written here from its formula)."""
    import torch
    dq = d(dq)
    B, L, H, D = dq.shape
    b, l, h, e = torch.meshgrid(*[torch.arange(n, device=dq.device) for n in (B, L, H, D)],
                                indexing="ij")
    flat = (((((b * (L // 8) + l // 8) * H + h) * (D // 8) + e // 8) * 2 + e % 2) * 32
            + 4 * (l % 8) + (e % 8) // 2)
    return dq.flatten()[flat]


_FP4_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def _fp4_act_quant_ref(t, block=32):
    """act_quant.py's fp4 kernel in float64: power-of-2 scales (ceil of
    log2(amax / 6)), x / scale clamped to [-6, 6] and rounded to the
    nearest float4_e2m1 with ties to the even code (torch.round halves to
    even on each binade's grid: 0.5 below 2, 1 below 4, 2 above), codes
    packed two per byte, element 2i in the low nibble."""
    import torch
    x = d(t["x"])
    M, N = x.shape
    xb = x.reshape(M, N // block, block)
    amax = xb.abs().amax(-1).clamp(min=6.0 * 2.0 ** -126)
    scale = torch.pow(2.0, torch.ceil(torch.log2(amax / 6.0)))
    v = (xb / scale[..., None]).clamp(-6.0, 6.0).reshape(M, N)
    a = v.abs()
    q = torch.where(a < 2, torch.round(a * 2) / 2,
                    torch.where(a < 4, torch.round(a), 2 * torch.round(a / 2)))
    grid = torch.tensor(_FP4_VALUES, dtype=torch.float64, device=x.device)
    code = torch.searchsorted(grid, q) + 8 * torch.signbit(v).long()
    packed = code[:, ::2] | (code[:, 1::2] << 4)
    return {"quant": packed.to(torch.uint8), "scale": scale}


def _grouped_ref(t):
    import torch
    a, b = d(t["A"]), d(t["B"])
    outs = [a[o:o + n] @ b[i] for i, (o, n) in
            enumerate(zip(t["batch_offsets"].tolist(), t["batch_sizes"].tolist()))]
    return torch.cat(outs)


# Symbol values for kernels with run-time shapes.
SYMBOLS = {
    "gemm_dynamic_mnk": lambda p: {"m": int(p["M"]), "n": int(p["N"]), "k": int(p["K"])},
    "grouped_gemm_fwd": lambda p: {"batch_sum": 256, "batch_count": 4, "K": 256, "N": 256},
    "mha_fwd_varlen": _varlen_symbols,
    "fp4_act_quant": lambda p: {"M": 256},
    "linear_attn_fwd_symbolic": lambda p: {k: int(p[k]) for k in ("B", "S", "H", "DK", "DV")},
    "lighting_indexer_symbolic": _indexer_symbols,
}


#===----------------------------------------------------------------------===#
# Build, run, compare
#===----------------------------------------------------------------------===#

def defines_for(case, checkout, small):
    found = call_site_defines(checkout / "examples" / case.file) if case.site_defines else []
    vals = dict(x[2:].split("=", 1) for x in found)
    vals.update({k: str(v) for k, v in case.overrides.items()})
    if small:
        vals.update({k: str(v) for k, v in case.small.items()})
    return vals


def build_key(case, args, vals):
    text = json.dumps([case.file, args.target, case.symbolic, sorted(vals.items())])
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def build(case, args, vals, work):
    out = work / build_key(case, args, vals)
    cu, so, manifest = out / "kernels.cu", out / "libkernels.so", out / "kernels.json"
    # A sanitizer child reuses its parent's build.
    if (args.reuse or args.child) and so.exists() and manifest.exists():
        return (so, json.loads(manifest.read_text())), None
    out.mkdir(parents=True, exist_ok=True)
    defines = {} if case.symbolic else vals
    cmd = [args.tilec, str(args.checkout / "examples" / case.file), f"--target={args.target}",
           "-o", str(cu)] + [f"-D{k}={v}" for k, v in defines.items()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode:
        return None, "tilec: " + (r.stderr.strip().splitlines() or ["?"])[0]
    gencode = gencode_for(args.target, 90)
    cmd = [args.nvcc, "-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC", gencode,
           "-I", str(ROOT / "runtime"), "-I", str(out), "-o", str(so), str(cu)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode:
        return None, "nvcc: " + (r.stderr.strip().splitlines() or ["?"])[0]
    return (so, json.loads(manifest.read_text())), None


def pick_kernel(manifest, case):
    ks = manifest["kernels"]
    return next((k for k in ks if k["name"] == case.kernel), ks[0]) if case.kernel else ks[0]


def run_case(case, args, vals, built, seed):
    import torch
    from refs import storage_of
    so, manifest = built
    kernel = pick_kernel(manifest, case)
    fn = getattr(ctypes.CDLL(str(so)), kernel["launcher"])
    fn.restype = ctypes.c_int
    symbols = SYMBOLS.get(case.name, lambda p: {})(vals)
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    bufs, roles, cargs = {}, {}, []
    for prm in launcher_params(kernel):
        if prm["kind"] == "symbol":
            cargs.append(ctypes.c_int64(symbols[prm["name"]]))
            continue
        if prm["kind"] == "scalar":
            cargs.append(scalar_arg(prm, symbols))
            continue
        role = prm.get("role", "input")
        dtype, shape = storage_of(prm["dtype"], shape_of(prm["shape"], symbols))
        buf = Buffer(shape, dtype, guarded=role != "input")
        bufs[prm["name"]], roles[prm["name"]] = buf, role
        t = buf.tensor
        if prm["name"] in case.init:
            case.init[prm["name"]](t, g)
        elif role == "output":
            poison(t)
        elif t.dtype.is_floating_point:
            t.copy_(torch.randn(t.shape, generator=g, device="cuda").to(t.dtype))
        else:
            t.copy_(torch.randint(-100, 101, t.shape, generator=g, device="cuda").to(t.dtype))
        cargs.append(ctypes.c_void_p(t.data_ptr()))
    before = {n: b.tensor.clone() for n, b in bufs.items()}
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    status = fn(*cargs, stream)
    torch.cuda.synchronize()
    if status != 0:
        return [{"output": "launcher", "ok": False, "error": f"status {status}"}]
    if args.time and seed == 1:
        # Timed before the check reads the outputs: the inputs stay as drawn.
        case.ms = time_launcher(lambda: fn(*cargs, stream))
    mod = load_example(args.checkout / "examples" / case.file) if case.load else None
    refs = case.ref(mod, before, vals)
    checks = []
    for name, ref in refs.items():
        if case.outputs and name not in case.outputs:
            continue
        out = bufs[name].tensor
        exact = name in case.exact
        tol = case.tol.get(name, {torch.float16: 1e-2, torch.bfloat16: 2e-2}.get(out.dtype, 1e-3))
        sentinel = None if out.dtype.is_floating_point else sentinel_of(out)
        c = compare(name, out, ref.to(out.device), exact, tol, sentinel)
        c["canaries_ok"] = bufs[name].canaries_ok()
        c["ok"] = c["ok"] and c["canaries_ok"]
        checks.append(c)
    return checks


def time_launcher(launch, reps=20):
    """Median milliseconds of one launch, from CUDA events around batches of
    launches sized to about 10 ms each (after a warm-up)."""
    import torch
    launch()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    launch()
    end.record()
    end.synchronize()
    n = max(1, min(1000, int(10 / max(start.elapsed_time(end), 1e-3))))
    times = []
    for _ in range(reps):
        start.record()
        for _ in range(n):
            launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / n)
    return sorted(times)[len(times) // 2]


def sanitize(case, args, tool, work, built, ctx):
    """One child under the tool runs CASE, small, with only the kernels of
    its build instrumented (torch's reference kernels would take most of
    the tool's time otherwise)."""
    cmd = [ctx["binary"], "--tool", tool, "--error-exitcode", str(SANITIZER_ERROR)]
    prefix = kernel_prefix(built[1])
    if ctx["filter"] and prefix:
        cmd += [ctx["filter"], f"kns={prefix}"]
    cmd += [sys.executable, __file__, str(args.checkout), "--only", case, "--small",
            "--tilec", args.tilec, "--target", args.target, "--work", str(work), "--child"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.sanitize_timeout)
    except subprocess.TimeoutExpired:
        return {"tool": tool, "ok": None, "note": "timed out"}
    # --error-exitcode: 97 means the tool reported something; 1 means the
    # case's own check failed under the tool (reported by the main run).
    summary = summary_of(r.stdout + r.stderr)
    return {"tool": tool, "ok": r.returncode != SANITIZER_ERROR and bool(summary),
            "rc": r.returncode, "summary": summary}


def sanitize_rows(rows, builds, args, work):
    """Adds a "sanitizer" list to every built row: each case under each tool,
    several children at once (the tools are mostly host-bound)."""
    binary = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    ctx = {"binary": binary, "filter": kernel_filter(binary)}
    todo = [(r, b) for r, (b, _) in zip(rows, builds) if r["status"] != "BUILD"]
    tools = args.sanitize.split(",")
    with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as ex:
        verdicts = list(ex.map(lambda job: sanitize(job[0][0]["case"], args, job[1], work,
                                                    job[0][1], ctx),
                               [(rb, t) for rb in todo for t in tools]))
    for i, (row, _) in enumerate(todo):
        row["sanitizer"] = verdicts[i * len(tools):(i + 1) * len(tools)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--tilec", default=os.environ.get("TILEC", str(ROOT / "build/tools/tilec/tilec")))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--only", default="")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--sanitize", default="")
    ap.add_argument("--sanitize-timeout", type=int, default=240)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--time", action="store_true",
                    help="also time each case's launcher (median of CUDA-event batches)")
    ap.add_argument("--out", default=os.environ.get("OUT", str(ROOT / "bench/out")))
    ap.add_argument("--work", help="keep the builds here (default: a temporary folder)")
    ap.add_argument("--build-only", action="store_true", help="build into --work, run nothing")
    ap.add_argument("--reuse", action="store_true",
                    help="run the builds --work already holds (built elsewhere with --build-only)")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        # nvcc dominates: build every distinct (file, -D values) at once,
        # then run the cases in order.
        plans = [(c, defines_for(c, args.checkout, args.small)) for c in cases]
        distinct = {}
        for c, v in plans:
            distinct.setdefault(build_key(c, args, v), (c, v))
        with ThreadPoolExecutor(max(1, min(16, os.cpu_count() or 1))) as ex:
            done = dict(zip(distinct, ex.map(lambda cv: build(cv[0], args, cv[1], work),
                                             distinct.values())))
        builds = [done[build_key(c, args, v)] for c, v in plans]
        if args.build_only:
            for (case, _), (built, err) in zip(plans, builds):
                print(f"{case.name}: {err or 'built'}")
            sys.exit(0 if all(b for b, _ in builds) else 1)
        for (case, vals), (built, err) in zip(plans, builds):
            row = {"case": case.name, "file": case.file, "defines": vals}
            if err:
                rows.append(dict(row, status="BUILD", error=err))
                print(f"{case.name}: {err}", flush=True)
                continue
            try:
                checks = [run_case(case, args, vals, built, seed) for seed in (1, 2)]
                ok = all(c["ok"] for cs in checks for c in cs)
                row.update(status="PASS" if ok else "FAIL", checks=checks,
                           max_rel_err=max((c.get("rel_err") or 0) for cs in checks for c in cs),
                           ms=getattr(case, "ms", None))
            except Exception as e:  # a failing case must not hide the others
                row.update(status="ERROR", error=f"{type(e).__name__}: {e}")
            rows.append(row)
            print(f"{case.name}: {row['status']} {row.get('max_rel_err', row.get('error', ''))}",
                  flush=True)
        if args.sanitize and not args.child:
            sanitize_rows(rows, builds, args, work)
    if args.child:
        sys.exit(0 if all(r["status"] == "PASS" for r in rows) else 1)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "corpus_check.json").write_text(json.dumps(rows, indent=1, default=str))
    print(f"\n{'case':<26} {'status':<6} {'max rel err':>11} {'ms':>8}  sanitizer / error")
    for r in rows:
        san = " ".join(f"{s['tool']}:{'clean' if s['ok'] else s.get('note') or s.get('summary')}"
                       for s in r.get("sanitizer", []))
        err = r.get("max_rel_err")
        ms = r.get("ms")
        print(f"{r['case']:<26} {r['status']:<6} {'-' if err is None else f'{err:.2e}':>11} "
              f"{'-' if ms is None else f'{ms:.4f}':>8}  {san or r.get('error', '')}")
    passed = sum(r["status"] == "PASS" for r in rows)
    print(f"\n{passed} of {len(rows)} real TileLang programs PASS ({time.strftime('%Y-%m-%d')})")


if __name__ == "__main__":
    main()
