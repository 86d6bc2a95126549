#!/usr/bin/env python3
"""Run tilec over TileLang's own examples, unchanged, and report per file.

    python3 scripts/corpus.py TILELANG_CHECKOUT [--tilec PATH] [--nvcc PATH]
                              [--jobs N] [--only SUBSTR] [--json FILE]
                              [--no-nvcc]

The corpus is every `examples/**/*.py` of the checkout that holds a
`T.Kernel`, less AMD-only, sm100/sm120/tcgen05 and test/regression/benchmark
files (the rules are CORPUS_EXCLUDE below). Nothing of TileLang is read but
those files, and nothing of it is copied into this project.

Per file the script records four steps, each only tried when the one before
passed:

  ir      tilec FILE --emit=ir                          (front end + Sema)
  sm80    tilec FILE --emit=cuda --target=sm_80         (every pass)
  sm90    tilec FILE --emit=cuda --target=sm_90
  nvcc    nvcc -c for sm_90a on the sm_90 output (and sm_80 on the sm_80
          output, when there is one)

A file whose sm_80 compile fails only because it needs Hopper counts as
"sm90-only". The table lists every file with its first failing step and the
first line of tilec's error, then the totals.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_EXCLUDE = re.compile(
    r"(^|/)(amd|test_[^/]*|[^/]*regression[^/]*|[^/]*bench[^/]*)(/|$)"
    r"|sm100|sm120|tcgen05|cdna|_amd|amd_"
)
HOPPER_ONLY = re.compile(r"needs sm_90|requires sm_90|Hopper")
TIMEOUT_S = 60


def corpus(checkout: Path, only: str):
    files = []
    for p in sorted((checkout / "examples").rglob("*.py")):
        rel = p.relative_to(checkout).as_posix()
        if CORPUS_EXCLUDE.search(rel) or only not in rel:
            continue
        if "T.Kernel" not in p.read_text(errors="replace"):
            continue
        files.append((rel, p))
    return files


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {TIMEOUT_S} s"
    return r.returncode, r.stderr + r.stdout


def first_error(text: str) -> str:
    for line in text.splitlines():
        if ": error:" in line:
            return line.split(": error:", 1)[1].strip()[:110]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[0] if lines else "(no output)")[:110]


def check_file(args, rel, path, tmp):
    stem = re.sub(r"[^A-Za-z0-9_]", "_", rel)
    out = {"file": rel, "ir": False, "sm80": False, "sm90": False,
           "nvcc90": None, "nvcc80": None, "error": ""}
    rc, text = run([args.tilec, str(path), "--emit=ir", "-o", f"{tmp}/{stem}.tir"])
    if rc != 0:
        out["error"] = "ir: " + first_error(text)
        return out
    out["ir"] = True
    cu = {}
    for tgt in ("sm_80", "sm_90"):
        dst = f"{tmp}/{stem}_{tgt}.cu"
        rc, text = run([args.tilec, str(path), f"--target={tgt}", "-o", dst])
        key = tgt.replace("_", "")
        out[key] = rc == 0
        if rc == 0:
            cu[tgt] = dst
        elif not out["error"]:
            out["error"] = f"{key}: " + first_error(text)
    if args.no_nvcc:
        return out
    arch = {"sm_80": "arch=compute_80,code=sm_80",
            "sm_90": "arch=compute_90a,code=sm_90a"}
    for tgt, dst in cu.items():
        rc, text = run([args.nvcc, "-std=c++17", "-c", f"-gencode={arch[tgt]}",
                        "-I", str(ROOT / "runtime"), dst, "-o", dst + ".o"])
        key = "nvcc" + tgt[3:]
        out[key] = rc == 0
        if rc != 0 and not out["error"]:
            out["error"] = f"{key}: " + first_error(text)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--tilec", default=str(ROOT / "build/tools/tilec/tilec"))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--only", default="")
    ap.add_argument("--json")
    ap.add_argument("--no-nvcc", action="store_true")
    args = ap.parse_args()

    files = corpus(args.checkout, args.only)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda f: check_file(args, f[0], f[1], tmp), files))

    def mark(v):
        return "-" if v is None else ("ok" if v else "FAIL")

    print(f"{'file':<62} {'ir':>4} {'sm80':>4} {'sm90':>4} {'nv90':>4} {'nv80':>4}  reason")
    for r in results:
        print(f"{r['file'][9:]:<62} {mark(r['ir']):>4} {mark(r['sm80']):>4} "
              f"{mark(r['sm90']):>4} {mark(r['nvcc90']):>4} {mark(r['nvcc80']):>4}  {r['error']}")
    n = len(results)
    ir = sum(r["ir"] for r in results)
    s90 = sum(r["sm90"] for r in results)
    s80 = sum(r["sm80"] for r in results)
    nv90 = sum(bool(r["nvcc90"]) for r in results)
    nv80 = sum(bool(r["nvcc80"]) for r in results)
    print(f"\n{n} files: ir {ir}, cuda sm_80 {s80}, cuda sm_90 {s90}, "
          f"nvcc sm_90a {nv90} ({100.0 * nv90 / max(n, 1):.0f}%), nvcc sm_80 {nv80}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
