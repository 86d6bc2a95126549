#!/usr/bin/env python3
"""Checks tilec-run results of test/CodeGen/Inputs/reducers.tile.

usage: check-reducers.py gemv_reducer|gemv_allreduce RESULT.txt

Both kernels compute a matrix-vector product; the reference recomputes it
from the inputs in RESULT.txt in double precision and fails (exit 1) on an
output element off by more than 0.05 + 0.01 * |expected| (fp16 outputs).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read  # noqa: E402


def dot_rows(mat, vec):
    k = len(vec)
    return [sum(m * v for m, v in zip(mat[r * k:(r + 1) * k], vec))
            for r in range(len(mat) // k)]


def main():
    kernel, path = sys.argv[1], sys.argv[2]
    p = read(path)
    if kernel == "gemv_reducer":
        out, ref = p["o"], dot_rows(p["a"], p["x"])
    else:
        out, ref = p["C"], dot_rows(p["B"], p["A"])
    bad = [i for i, (o, r) in enumerate(zip(out, ref))
           if abs(o - r) > 0.05 + 0.01 * abs(r)]
    if len(out) != len(ref) or bad:
        print(f"{kernel}: {len(bad)} of {len(ref)} outputs differ, first at {bad[:1]}")
        return 1
    print(f"{kernel}: {len(ref)} outputs match the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
