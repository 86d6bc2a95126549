#!/usr/bin/env python3
"""Checks a tilec-run result of an example against a plain Python reference.

usage: reference.py EXAMPLE[@VARIANT] RESULT.txt

RESULT.txt is tilec-run's output (every parameter after the run, inputs
unchanged). The reference recomputes the example's outputs from its inputs
with the formula in the example's header comment, in double precision, and
fails (exit 1) on an element off by more than atol + rtol * |expected|.
Examples without a reference here exit 0 with a note; they are still
checked against the other targets and the CUDA-core lowering.
"""
import math
import sys


def read(path):
    params, name, values = {}, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("param "):
                name = line.split()[1]
                values = params.setdefault(name, [])
            else:
                values.append(float(line))
    return params


def matmul(a, b, m, n, k, trans_b=False, trans_a=False):
    out = [0.0] * (m * n)
    for i in range(m):
        row = a[i::m] if trans_a else a[i * k:(i + 1) * k]
        for j in range(n):
            if trans_b:
                col = b[j * k:(j + 1) * k]
            else:
                col = b[j::n]
            out[i * n + j] = sum(x * y for x, y in zip(row, col))
    return out


def gemm(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k)}


def gemm_nt(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k, trans_b=True)}


def gemm_tt(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k, trans_b=True, trans_a=True)}


def gemm_epilogue(p):
    m, n = 128, len(p["Bias"])
    k = len(p["A"]) // m
    c = matmul(p["A"], p["B"], m, n, k)
    return {"D": [max(c[i] + p["Bias"][i % n], 0.0) for i in range(m * n)]}


def elementwise_add(p):
    return {"C": [a + b for a, b in zip(p["A"], p["B"])]}


def rows(x, n):
    return [x[i:i + n] for i in range(0, len(x), n)]


def reduce(p):
    n = len(p["A"]) // len(p["Out"])
    return {"Out": [sum(r) for r in rows(p["A"], n)]}


def softmax(p):
    out = []
    for r in rows(p["X"], 256):
        mx = max(r)
        e = [math.exp(x - mx) for x in r]
        out += [x / sum(e) for x in e]
    return {"Y": out}


def rmsnorm(p):
    n = len(p["W"])
    out = []
    for r in rows(p["X"], n):
        s = 1.0 / math.sqrt(sum(x * x for x in r) / n + 1e-6)
        out += [x * s * w for x, w in zip(r, p["W"])]
    return {"Y": out}


def layernorm(p):
    n = len(p["gamma"])
    out = []
    for r in rows(p["X"], n):
        mean = sum(r) / n
        var = sum((x - mean) ** 2 for x in r) / n
        s = 1.0 / math.sqrt(var + 1e-5)
        out += [(x - mean) * s * g + b
                for x, g, b in zip(r, p["gamma"], p["beta"])]
    return {"Y": out}


def gemv(p):
    k = len(p["A"])
    return {"C": [sum(a * b for a, b in zip(p["A"], r))
                  for r in rows(p["B"], k)]}


def minmax(p):
    a = p["A"]
    # Stats starts at zero (tilec-run zero-fills outputs).
    return {"Stats": [max(0.0, max(a)), min(0.0, min(a)),
                      max(0.0, max(abs(x) for x in a))]}


REFERENCES = {
    "elementwise_add": elementwise_add,
    "gemm": gemm,
    "gemm_dynamic": gemm_nt,
    "gemm_rs": gemm,
    "gemm_transpose": gemm,
    "gemm_transpose@k_pack_tt": gemm_tt,
    "gemm_transpose@k_pack_nt": gemm_nt,
    "splitk_gemm": gemm,
    "gemm_int8": gemm_nt,
    "gemm_epilogue": gemm_epilogue,
    "reduce": reduce,
    "softmax": softmax,
    "rmsnorm": rmsnorm,
    "layernorm": layernorm,
    "gemv": gemv,
    "minmax": minmax,
}


def main():
    example, path = sys.argv[1], sys.argv[2]
    # NAME@VARIANT (shapes.txt) has the reference of NAME unless it has one
    # of its own.
    ref = REFERENCES.get(example, REFERENCES.get(example.split("@")[0]))
    if ref is None:
        print(f"{example}: no Python reference (cross-target check only)")
        return 0
    p = read(path)
    ok = True
    for name, want in ref(p).items():
        got = p[name]
        bad = [i for i, (g, w) in enumerate(zip(got, want))
               if not abs(g - w) <= 2e-2 + 2e-2 * abs(w)]
        if len(got) != len(want) or bad:
            i = bad[0] if bad else 0
            print(f"{example}: {name}: {len(bad)} of {len(want)} elements "
                  f"differ from the reference (element {i}: got "
                  f"{got[i]}, expected {want[i]})")
            ok = False
    if ok:
        print(f"{example}: matches the reference")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
