#!/usr/bin/env python3
"""Build, check and time every example kernel on the GPU of this machine.

    python3 bench/run.py [--tilec PATH] [--targets sm_90[,sm_80]] [--only a,b]
                         [--quick] [--no-timing] [--timed-only] [--tiles NAMES|all]
                         [--out DIR] [--budget SECONDS] [--list]

For every example (examples/<stem>.tile) and every configuration of it
(bench/configs.py) and target, the script

  1. compiles the kernel with tilec (--emit=cuda --target=T -D ...) and the
     generated .cu with nvcc into a shared library (-Xptxas -v: registers,
     shared memory, spills are recorded), all builds in parallel;
  2. in a child process (restarted after a crash, a lost CUDA context or a
     hang, so one bad kernel cannot take the others down) loads the library
     with ctypes, reads the manifest (NAME.json) for the launcher's
     parameters, allocates torch tensors (outputs with canary bytes around
     them), fills inputs with fresh random data, poisons outputs (NaN, or a
     sentinel for integers), calls the launcher with the device pointers, the
     symbols and the current stream, checks its status and the stream, and
     compares every output with the float64 reference of bench/refs.py
     (||out - ref|| / ||ref|| under a per-dtype threshold, no NaN or
     unwritten element, canaries intact), twice with fresh data, and once
     more after the timing loop;
  3. times the kernel, its torch equivalent and the example's extra baselines
     (Triton, SDPA backends) with CUDA events around CUDA graph replays (eager
     launches when capture fails), rotating several input sets when one set
     fits in L2, median of --reps repetitions, and measures the
     device-to-device copy bandwidth and a cuBLAS fp16 GEMM as ceilings
     (and, for extras named *-same-bytes, a copy of the run's byte count);
  4. writes results.json, table.txt and sources.tar.gz (generated code and
     ptxas reports) to --out (default $OUT, else bench/out) and prints the
     table last, followed by per-example TFLOP/s tables of the compute-bound
     runs (the fastest of a build's tile candidates against the baselines,
     with the build's goal ratio).

--list prints the planned builds and runs without building anything.

Exit status: 0 when every run that was made passed, 1 otherwise (builds that
tilec or nvcc rejected are listed, and count as failures only with --strict).
docs/benchmarks.md describes the options and the result format.
"""

import argparse
import ast
import ctypes
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))

import sanitize  # noqa: E402
from configs import CONFIGS, TILE_FAMILY, TILES  # noqa: E402

TILEC_STATUS = {0: "success", 1: "invalid argument", 2: "kernel launch failed",
                3: "unsupported on this device", 4: "out of memory",
                5: "argument shape does not match the kernel"}
CANARY_BYTES = 512
CANARY = 0xA5
# Exit code of a child whose CUDA context is unusable: the parent restarts it.
CHILD_RESTART = 3


# --- factory parameters ---------------------------------------------------------

class _Name(str):
    """`T` in a default value: `T.float16` evaluates to "float16",
    `T.GemmWarpPolicy.FullRow` to "FullRow" (the spellings -D takes)."""

    def __getattr__(self, name):
        return _Name(name)


def factory_defaults(tile_path):
    """Defaults of the @tilelang.jit factory's parameters, as Python values."""
    tree = ast.parse(Path(tile_path).read_text(), str(tile_path))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.dump(d) for d in node.decorator_list):
            args = node.args.args
            defaults = node.args.defaults
            out = {}
            for arg, default in zip(args[len(args) - len(defaults):], defaults):
                code = compile(ast.Expression(default), str(tile_path), "eval")
                value = eval(code, {"__builtins__": {}}, {"T": _Name("T")})
                out[arg.arg] = str(value) if isinstance(value, _Name) else value
            return out
    return {}


def define_value(text):
    """The Python value tilec gives `-D name=text` (Sema's parseDefineValue)."""
    text = str(text).strip()
    for conv in (lambda s: int(s, 0), float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"True": True, "true": True, "False": False, "false": False,
            "None": None}.get(text, text)


def define_text(value):
    return str(value)


# --- compiling ------------------------------------------------------------------------

def first_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if re.search(r"\berror\b", line, re.IGNORECASE):
            return line
    return lines[0] if lines else "(no output)"


def parse_ptxas(text):
    """Registers, spills and stack per kernel from nvcc -Xptxas -v output."""
    kernels = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$]+)'?", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        for key, pattern in (("registers", r"Used (\d+) registers"),
                             ("stack_bytes", r"(\d+) bytes stack frame"),
                             ("spill_store_bytes", r"(\d+) bytes spill stores"),
                             ("spill_load_bytes", r"(\d+) bytes spill loads"),
                             ("static_smem_bytes", r"(\d+) bytes smem")):
            m = re.search(pattern, line)
            if m:
                current[key] = int(m.group(1))
    return {k: v for k, v in kernels.items() if v}


def gencode_for(target, device_cc):
    """nvcc -gencode for tilec target TARGET on a device of compute capability
    DEVICE_CC (e.g. 90), or None when the device cannot run that target."""
    want = int(target[3:])
    if device_cc < want:
        return None
    if want == 90:
        # wgmma/setmaxnreg exist only in the arch-specific sm_90a.
        return "-gencode=arch=compute_90a,code=sm_90a" if device_cc == 90 else None
    return f"-gencode=arch=compute_{want},code=sm_{device_cc}"


def build_key(stem, target, defines):
    text = json.dumps([stem, target, sorted(defines.items())], default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def run_tool(cmd, timeout):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout} s: {' '.join(map(str, cmd))}"
    except OSError as e:
        return -1, f"cannot run {cmd[0]}: {e}"


def compile_build(b, args):
    """Runs tilec and nvcc for build record B (updated in place)."""
    d = Path(args.work) / b["stem"] / b["target"] / b["key"]
    d.mkdir(parents=True, exist_ok=True)
    cu = d / f"{b['stem']}.cu"
    cmd = [args.tilec, str(ROOT / "examples" / f"{b['stem']}.tile"), "--emit=cuda",
           f"--target={b['target']}", "-o", str(cu)]
    for name, value in b["defines"].items():
        cmd += ["-D", f"{name}={define_text(value)}"]
    b["tilec_cmd"] = " ".join(cmd)
    t0 = time.time()
    rc, out = run_tool(cmd, 120)
    (d / "tilec.log").write_text(out)
    if rc != 0:
        b.update(status="not compiled", error=first_error_line(out))
        return b
    gencode = gencode_for(b["target"], args.device_cc)
    if gencode is None:
        b.update(status="skipped", error=f"sm_{args.device_cc} cannot run {b['target']}")
        return b
    so = d / f"lib{b['stem']}.so"
    cmd = [args.nvcc, "-std=c++17", "-O3", "-lineinfo", "-shared", "-Xcompiler", "-fPIC",
           gencode, "-Xptxas", "-v", "-I", str(ROOT / "runtime"), "-I", str(d),
           "-o", str(so), str(cu)]
    b["nvcc_cmd"] = " ".join(cmd)
    rc, out = run_tool(cmd, 600)
    (d / "nvcc.log").write_text(out)
    b["compile_s"] = round(time.time() - t0, 2)
    if rc != 0:
        b.update(status="nvcc failed", error=first_error_line(out))
        return b
    b.update(status="compiled", so=str(so), manifest=str(d / f"{b['stem']}.json"),
             ptxas=parse_ptxas(out))
    return b


def tile_choices(cfg, args):
    """The tile candidates of build CFG: (name or None, -D values) pairs.
    --tiles replaces the build's own list with the names of its family."""
    if not cfg.tiles:
        return [(None, {})]
    names = list(cfg.tiles)
    if args.tiles:
        family = TILE_FAMILY[cfg.tiles[0]]
        wanted = [n for n in TILES if TILE_FAMILY[n] == family] if args.tiles == ["all"] \
            else [n for n in args.tiles if TILE_FAMILY.get(n) == family]
        names = wanted or names
    return [(n, TILES[n]) for n in names]


def plan_builds(args):
    builds = []
    for stem in args.examples:
        defaults = factory_defaults(ROOT / "examples" / f"{stem}.tile")
        configs = CONFIGS.get(stem, [])
        if args.quick:
            configs = configs[:1]
        if args.no_paper:
            configs = [c for c in configs if "paper" not in c.tags]
        if args.timed_only:
            configs = [c for c in configs if not {"check", "ragged"} & set(c.tags)]
        if args.sanitize and not args.match:
            configs = [c for c in configs if {"check", "ragged"} & set(c.tags)]
        if args.match:
            configs = [c for c in configs if re.search(args.match, f"{stem} {c.label}")]
        for cfg in configs:
            for tile, tile_defines in tile_choices(cfg, args):
                raw = dict(cfg.defines, **tile_defines)
                defines = {k: define_value(define_text(v)) for k, v in raw.items()}
                params = dict(defaults, **defines)
                label = f"{cfg.label} @{tile}" if tile else cfg.label
                for target in args.targets:
                    builds.append({
                        "stem": stem, "label": label, "group": cfg.label, "tile": tile,
                        "goal": cfg.goal, "target": target, "tags": list(cfg.tags),
                        "defines": raw, "params": params,
                        "unknown_params": sorted(set(raw) - set(defaults)),
                        "runs": [{"label": r.label, "symbols": r.symbols} for r in cfg.runs],
                        "key": build_key(stem, target, raw), "status": "pending"})
    return builds


def compile_all(builds, args):
    jobs = max(1, args.jobs)
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda b: compile_build(b, args), builds))


# --- the child: checking and timing on the GPU -----------------------------------------------

def child_main(job_path, result_path):
    """Runs the jobs of JOB_PATH, appending one JSON line per job to RESULT_PATH."""
    import torch  # imported here: the parent needs no GPU
    spec = json.loads(Path(job_path).read_text())
    settings = spec["settings"]
    with open(result_path, "a") as out:
        def emit(record):
            out.write(json.dumps(record) + "\n")
            out.flush()

        torch.cuda.init()
        emit({"id": "ready"})
        if settings.get("calibrate"):
            emit(dict(id="calibration", **safe(lambda: calibrate(settings))))
        for job in spec["jobs"]:
            if time.time() > settings["deadline"]:
                emit({"id": job["id"], "status": "SKIPPED", "error": "time budget spent"})
                continue
            log(f"[{job['id']}] {job['stem']} / {job['label']} / {job['run_label']} "
                f"({job['target']})")
            try:
                record = run_job(job, settings)
            except Exception as e:  # a failing job must not stop the others
                record = {"status": "ERROR", "error": f"{type(e).__name__}: {e}",
                          "traceback": traceback.format_exc(limit=6)}
            record["id"] = job["id"]
            emit(record)
            safe(torch.cuda.empty_cache)
            log(f"    -> {record['status']} {record.get('error', '')}")
            if record["status"] in ("ERROR", "CRASH") and not cuda_alive():
                sys.exit(CHILD_RESTART)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def safe(fn):
    try:
        return fn()
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def cuda_alive():
    import torch
    try:
        t = torch.ones(16, device="cuda")
        return float((t + 1).sum().item()) == 32.0
    except Exception:
        return False


def calibrate(settings):
    """The two ceilings: device-to-device copy bandwidth and cuBLAS fp16 GEMM."""
    import torch
    props = torch.cuda.get_device_properties(0)
    n = 1 << 29  # 2 GiB of float32 per buffer
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    # copy_ is a cudaMemcpyAsync, which ran well under a plain kernel's rate
    # here: the ceiling is the best of a memcpy (graph and eager) and an
    # elementwise kernel that reads and writes the same bytes.
    copies = {
        "copy_graph": bench_fns([lambda: dst.copy_(src)], settings)["ms"],
        "copy_eager": bench_fns([lambda: dst.copy_(src)], dict(settings, graphs=False))["ms"],
        "neg_kernel": bench_fns([lambda: torch.neg(src, out=dst)], settings)["ms"],
    }
    copy_GBps = {k: 2 * 4 * n / ms / 1e6 for k, ms in copies.items()}
    del src, dst
    m = 8192
    a = torch.randn((m, m), device="cuda", dtype=torch.float16)
    b = torch.randn((m, m), device="cuda", dtype=torch.float16)
    c = torch.empty((m, m), device="cuda", dtype=torch.float16)
    gemm_ms = bench_fns([lambda: torch.matmul(a, b, out=c)], settings)["ms"]
    return {"gpu": props.name, "sm_count": props.multi_processor_count,
            "l2_bytes": l2_bytes(), "memory_bytes": props.total_memory,
            "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "copy_GBps": max(copy_GBps.values()), "copy_variants_GBps": copy_GBps,
            "cublas_fp16_8192_TFLOPs": 2 * m ** 3 / gemm_ms / 1e9}


def l2_bytes():
    import torch
    return getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)


def bench_fns(fns, settings):
    """Median time (ms) of one call, cycling through FNS (one per input set):
    CUDA events around graph replays of n_inner calls, eager when capture fails."""
    import torch
    torch.cuda.synchronize()
    for f in fns:
        f()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for f in fns:
        f()
    end.record()
    end.synchronize()
    estimate = max(start.elapsed_time(end) / len(fns), 1e-4)
    rounds = max(1, math.ceil(settings["target_ms"] / estimate / len(fns)))
    n_inner = min(len(fns) * rounds, max(len(fns), settings["max_inner"]))
    calls = [fns[i % len(fns)] for i in range(n_inner)]

    def eager():
        for f in calls:
            f()

    runner, mode = eager, "eager"
    if settings.get("graphs", True):
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                eager()
            runner, mode = graph.replay, "graph"
        except Exception:
            torch.cuda.synchronize()
    runner()
    torch.cuda.synchronize()
    times = []
    for _ in range(settings["reps"]):
        start.record()
        runner()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / n_inner)
    return {"ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
            "mode": mode, "calls_per_rep": n_inner}


class Buffer:
    """A buffer parameter's tensor, with canary bytes around outputs."""

    def __init__(self, shape, dtype, guarded):
        import torch
        elem = torch.empty((), dtype=dtype).element_size()
        n = math.prod(shape) * elem
        pad = CANARY_BYTES if guarded else 0
        self.storage = torch.empty(n + 2 * pad, dtype=torch.uint8, device="cuda")
        self.pad = pad
        self.tensor = self.storage[pad:pad + n].view(dtype).view(shape)
        if guarded:
            self.storage[:pad].fill_(CANARY)
            self.storage[pad + n:].fill_(CANARY)

    def canaries_ok(self):
        if not self.pad:
            return True
        return bool((self.storage[:self.pad] == CANARY).all()
                    and (self.storage[-self.pad:] == CANARY).all())


def shape_of(entries, symbols):
    dims = []
    for e in entries:
        dims.append(int(e) if isinstance(e, int) else
                    int(eval(str(e), {"__builtins__": {}}, dict(symbols))))
    return tuple(dims)


def poison(t):
    import torch
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.view(torch.uint8).fill_(CANARY)


def sentinel_of(t):
    import torch
    probe = torch.empty(1, dtype=t.dtype, device=t.device)
    poison(probe)
    return probe.item()


def fill_random(t, g):
    import torch
    if t.dtype.is_floating_point:
        t.copy_(torch.randn(t.shape, generator=g, device=t.device).to(t.dtype))
    elif t.dtype == torch.uint8:
        t.copy_(torch.randint(0, 256, t.shape, generator=g, device=t.device))
    elif t.dtype == torch.bool:
        t.copy_(torch.randint(0, 2, t.shape, generator=g, device=t.device))
    else:
        t.copy_(torch.randint(-100, 101, t.shape, generator=g, device=t.device))


class Instance:
    """One set of launcher arguments: tensors for every buffer, ready to call."""

    def __init__(self, kernel, p, symbols, spec, g):
        import torch
        from refs import torch_dtype
        self.buffers, self.roles, self.args = {}, {}, []
        self.kernel, self.symbols = kernel, symbols
        for prm in launcher_params(kernel):
            kind, name = prm["kind"], prm["name"]
            if kind == "symbol":
                self.args.append(ctypes.c_int64(int(symbols[name])))
            elif kind == "scalar":
                self.args.append(scalar_arg(prm, symbols))
            else:
                role = prm.get("role", "input")
                buf = Buffer(shape_of(prm["shape"], symbols), torch_dtype(prm["dtype"]),
                             guarded=role != "input")
                self.buffers[name], self.roles[name] = buf, role
                self.args.append(None)
        self.refill(p, spec, g)

    def tensors(self):
        return {n: b.tensor for n, b in self.buffers.items()}

    def refill(self, p, spec, g):
        """Fresh inputs, initialized inouts, poisoned outputs and workspaces;
        returns the pre-launch values the reference needs (copies of the
        buffers the kernel may change)."""
        self.stateful = False
        before = {}
        for name, buf in self.buffers.items():
            t, role = buf.tensor, self.roles[name]
            before[name] = t
            if name in spec.workspace:
                poison(t)
                continue
            if spec.init and spec.init(name, t, p, g):
                pass
            elif role == "output":
                poison(t)
                continue
            else:
                fill_random(t, g)
            if role != "input":
                # Initialized state the kernel reads and updates (split-K
                # accumulators, running statistics).
                self.stateful = True
                before[name] = t.clone()
        if spec.derive:
            spec.derive(self.tensors(), p, self.symbols)
        return before

    def call(self, fn):
        import torch
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        args = []
        for prm, a in zip(launcher_params(self.kernel), self.args):
            args.append(ctypes.c_void_p(self.buffers[prm["name"]].tensor.data_ptr())
                        if a is None else a)
        return fn(*args, stream)


def launcher_params(kernel):
    """The launcher's arguments in order, without the stream: the manifest's
    params, then any symbol it lists only under "symbols"."""
    params = list(kernel["params"])
    listed = {p["name"] for p in params if p["kind"] == "symbol"}
    params += [{"name": s, "kind": "symbol", "dtype": "int64"}
               for s in kernel.get("symbols", []) if s not in listed]
    return params


def scalar_arg(prm, symbols):
    ctype = {"int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "float": ctypes.c_float,
             "double": ctypes.c_double, "int": ctypes.c_int}.get(prm.get("c_type"))
    if ctype is None or prm["name"] not in symbols:
        raise ValueError(f"no value for scalar parameter {prm['name']} ({prm.get('c_type')})")
    return ctype(symbols[prm["name"]])


def compare(name, out, ref, exact, threshold, sentinel):
    import torch
    o = out.to(torch.float64)
    r = ref.to(torch.float64).reshape(o.shape)
    if out.dtype.is_floating_point or sentinel is None:
        unwritten = int((~torch.isfinite(o) & torch.isfinite(r)).sum())
    else:
        unwritten = int(((o == sentinel) & (r != sentinel)).sum())
    diff = torch.where(torch.isfinite(r), o - r, torch.where(o == r, 0.0, math.inf))
    norm = float(torch.linalg.vector_norm(torch.where(torch.isfinite(r), r, 0.0)))
    err = float(torch.linalg.vector_norm(diff)) / (norm if norm > 0 else 1.0)
    mismatches = int((o != r).sum()) if exact else None
    ok = unwritten == 0 and not math.isnan(err) and (
        mismatches == 0 if exact else err <= threshold)
    return {"output": name, "rel_err": err, "threshold": 0.0 if exact else threshold,
            "unwritten_or_nan": unwritten, "mismatches": mismatches, "ok": bool(ok)}


def threshold_for(spec, p, dt):
    """The relative-error threshold for an output of dtype DT: the example's
    own (tf32 inputs, say) or the dtype's."""
    from refs import THRESHOLDS
    own = spec.tolerance(p, dt) if spec.tolerance else None
    return own if own is not None else THRESHOLDS.get(dt, 1e-3)


def check_once(inst, fn, p, symbols, spec, g, before=None):
    """One launch on fresh data (or, with BEFORE, on the current data), compared
    with the reference. Returns (checks, error or None)."""
    import torch
    from refs import dtype_name
    if before is None:
        before = inst.refill(p, spec, g)
    else:
        for name, buf in inst.buffers.items():
            if inst.roles[name] != "input":
                poison(buf.tensor)
    status = inst.call(fn)
    if status != 0:
        return [], f"launcher returned {status} ({TILEC_STATUS.get(status, 'unknown')})"
    torch.cuda.synchronize()
    expected = spec.ref(before, p, symbols)
    checks = []
    for name, ref in expected.items():
        out = inst.buffers[name].tensor
        dt = dtype_name(next(x["dtype"] for x in inst.kernel["params"] if x["name"] == name))
        checks.append(compare(name, out, ref, name in spec.exact,
                              threshold_for(spec, p, dt), sentinel_of(out)))
    for name, buf in inst.buffers.items():
        if not buf.canaries_ok():
            checks.append({"output": name, "ok": False,
                           "error": "write outside the buffer (canary bytes changed)"})
    return checks, None


def find_kernel(manifest, stem, specs):
    kernels = manifest["kernels"]
    for k in kernels:
        if k["name"] in specs or k["launcher"] in specs:
            return k
    return kernels[0]


def verify_shapes(kernel, p, symbols, spec):
    from refs import dtype_name
    expected = spec.shapes(p, symbols)
    for prm in kernel["params"]:
        if prm["kind"] != "buffer":
            continue
        if prm["name"] not in expected:
            return f"manifest buffer {prm['name']} is unknown to bench/refs.py"
        shape, dt = expected.pop(prm["name"])
        got = shape_of(prm["shape"], symbols)
        if tuple(got) != tuple(shape) or dtype_name(prm["dtype"]) != dtype_name(dt):
            return (f"manifest says {prm['name']}: {dtype_name(prm['dtype'])}{list(got)}, "
                    f"bench/refs.py expects {dtype_name(dt)}{list(shape)}")
    if expected:
        return f"manifest lacks buffers {sorted(expected)}"
    return None


def run_job(job, settings):
    import torch
    from refs import SPECS, Params
    manifest = json.loads(Path(job["manifest"]).read_text())
    spec = SPECS.get(job["stem"])
    kernel = find_kernel(manifest, job["stem"], SPECS)
    spec = spec or SPECS.get(kernel["name"])
    if spec is None:
        return {"status": "ERROR", "error": f"no reference in bench/refs.py for {job['stem']}"}
    p, symbols = Params(job["params"]), dict(job["symbols"])
    mismatch = verify_shapes(kernel, p, symbols, spec)
    if mismatch:
        return {"status": "ERROR", "error": mismatch}
    lib = ctypes.CDLL(job["so"])
    fn = getattr(lib, kernel["launcher"])
    fn.restype = ctypes.c_int
    g = torch.Generator(device="cuda")
    g.manual_seed(job["seed"])
    record = {"launcher": kernel["launcher"], "seed": job["seed"],
              "launches": kernel.get("launches", []), "assumes": kernel.get("assumes", [])}
    inst = Instance(kernel, p, symbols, spec, g)
    all_checks = []
    for _ in range(settings["checks"]):
        checks, error = check_once(inst, fn, p, symbols, spec, g)
        all_checks.append(checks)
        if error:
            return dict(record, status="ERROR", error=error)
    record["checks"] = all_checks
    failed = [c for cs in all_checks for c in cs if not c["ok"]]
    errs = [[c.get("rel_err") for c in cs] for cs in all_checks]
    record["max_rel_err"] = max((c.get("rel_err") or 0.0 for cs in all_checks for c in cs),
                                default=0.0)
    record["rel_errs"] = errs
    if failed:
        return dict(record, status="FAIL", error=describe_failure(failed[0]))
    work = spec.work(p, symbols)
    record["work"] = work
    if job["time"]:
        record["timing"] = time_job(inst, fn, p, symbols, spec, g, settings)
        again, error = ([], None)
        if inst.before is not None:
            again, error = check_once(inst, fn, p, symbols, spec, g, before=inst.before)
            record["recheck"] = again
        if error or any(not c["ok"] for c in again):
            return dict(record, status="FAIL",
                        error=error or "after timing: " + describe_failure(
                            next(c for c in again if not c["ok"])))
    return dict(record, status="PASS")


def describe_failure(c):
    if "error" in c:
        return f"{c['output']}: {c['error']}"
    if c["unwritten_or_nan"]:
        return f"{c['output']}: {c['unwritten_or_nan']} elements unwritten or NaN"
    if c["mismatches"]:
        return f"{c['output']}: {c['mismatches']} elements differ"
    return f"{c['output']}: rel err {c['rel_err']:.3g} > {c['threshold']:.3g}"


def time_job(inst, fn, p, symbols, spec, g, settings):
    """Times the kernel and the torch baseline over rotating input sets."""
    import torch
    set_bytes = sum(b.storage.numel() for b in inst.buffers.values())
    sets = max(1, min(settings["max_sets"], math.ceil(3 * l2_bytes() / max(set_bytes, 1))))
    instances = [inst] + [Instance(inst.kernel, p, symbols, spec, g) for _ in range(sets - 1)]
    # The re-check after timing runs on set 0's inputs again; buffers that
    # carry state between launches (inouts) change under repeated launches,
    # so only kernels without them are re-checked.
    before = inst.refill(p, spec, g)
    inst.before = None if inst.stateful else before

    def launcher(i):
        def call():
            status = i.call(fn)
            if status != 0:
                raise RuntimeError(f"launcher returned {status}")
        return call

    timing = {"input_sets": sets, "set_bytes": set_bytes}
    timing["tilec"] = bench_fns([launcher(i) for i in instances], settings)
    if spec.torch is not None:
        try:
            fns = [spec.torch(i.tensors(), p, symbols) for i in instances]
            if all(f is not None for f in fns):
                timing["torch"] = bench_fns(fns, settings)
                timing["torch_name"] = spec.baseline
                timing["torch_short"] = spec.short
        except Exception as e:
            timing["torch_error"] = f"{type(e).__name__}: {e}"
            torch.cuda.synchronize()
    # Further baselines (Triton, other SDPA backends), timed the same way; a
    # baseline that fails is recorded and skipped.
    for name, make in spec.extras.items():
        try:
            fns = [make(i.tensors(), p, symbols) for i in instances]
            if all(f is not None for f in fns):
                # bench_fns' warm-up call compiles and autotunes Triton kernels.
                timing.setdefault("extras", {})[name] = bench_fns(fns, settings)
        except Exception as e:
            timing.setdefault("extra_errors", {})[name] = f"{type(e).__name__}: {e}"[:300]
            torch.cuda.synchronize()
    del instances[1:]
    return timing


def selftest_refs(args):
    """Runs every reference and baseline (torch and the extra ones) of the
    selected examples on the shapes of their first configuration (no tilec
    needed) and compares each baseline's result with the reference. Returns
    the number of examples whose reference or a baseline raised."""
    import torch
    from refs import SPECS, Params, dtype_name, torch_dtype
    failures = 0
    for stem in args.examples:
        cfg = CONFIGS[stem][0]
        p = Params(factory_defaults(ROOT / "examples" / f"{stem}.tile"),
                   **{k: define_value(define_text(v)) for k, v in cfg.defines.items()})
        sym = cfg.runs[0].symbols
        spec = SPECS[stem]
        g = torch.Generator(device="cuda")
        g.manual_seed(args.seed)
        try:
            x = {}
            for name, (shape, dt) in spec.shapes(p, sym).items():
                t = torch.empty(shape, dtype=torch_dtype(dt), device="cuda")
                if name in spec.workspace:
                    poison(t)
                elif not (spec.init and spec.init(name, t, p, g)):
                    fill_random(t, g)
                x[name] = t
            if spec.derive:
                spec.derive(x, p, sym)
            ref = spec.ref({n: t.clone() for n, t in x.items()}, p, sym)
            for name, r in ref.items():
                assert r.numel() == x[name].numel(), f"ref {name} has shape {tuple(r.shape)}"
            fn = spec.torch(x, p, sym) if spec.torch else None
            got = fn() if fn else None
            torch.cuda.synchronize()
            notes = [f"{spec.short or 'torch'}: " + baseline_note(spec, p, sym, ref, got)]
            for label, make in spec.extras.items():
                # An extra baseline that cannot run (no Triton, an SDPA backend
                # that rejects the shape) is reported, not counted as a failure.
                try:
                    fn = make(x, p, sym)
                    got = fn() if fn else None
                    torch.cuda.synchronize()
                    notes.append(f"{label}: " + baseline_note(spec, p, sym, ref, got))
                except Exception as e:
                    notes.append(f"{label}: ERROR {type(e).__name__}: {str(e)[:200]}")
            print(f"selftest {stem:16} ok   {'; '.join(notes)}", flush=True)
        except Exception as e:
            failures += 1
            print(f"selftest {stem:16} FAILED {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=4)
    return failures


def baseline_note(spec, p, sym, ref, got):
    """How a baseline's result GOT compares with the reference REF."""
    from refs import dtype_name
    if isinstance(got, (tuple, list)):
        got = got[0]
    name, r = next(iter(ref.items()))
    if got is None:
        return "no baseline for this configuration"
    if not spec.baseline_is_ref:
        return "computes another function (by design)"
    if got.numel() != r.numel():
        return "returns another shape"
    dt = dtype_name(spec.shapes(p, sym)[name][1])
    c = compare(name, got, r, name in spec.exact, threshold_for(spec, p, dt), None)
    return f"vs ref {name}: rel err {c['rel_err']:.2e} ({'agrees' if c['ok'] else 'DIFFERS'})"


# --- the parent: running children, collecting results --------------------------------------------

def run_children(jobs, args, out_dir):
    """Runs JOBS in child processes; a child that crashes, loses its CUDA
    context or stops making progress is replaced, and its current job is
    recorded as CRASH or TIMEOUT."""
    results, calibration = {}, None
    pending = list(jobs)
    work = Path(args.work)
    attempt, fruitless = 0, 0
    while pending:
        attempt += 1
        job_file, result_file = work / f"child{attempt}.json", work / f"child{attempt}.jsonl"
        settings = {"deadline": args.deadline - 15, "checks": args.checks, "reps": args.reps,
                    "target_ms": args.target_ms, "max_inner": 2000, "max_sets": 8,
                    "graphs": not args.no_graphs, "calibrate": calibration is None}
        job_file.write_text(json.dumps({"settings": settings, "jobs": pending}))
        result_file.write_text("")
        stderr_path = work / f"child{attempt}.log"
        with open(stderr_path, "w") as err:
            proc = subprocess.Popen([sys.executable, __file__, "--child", str(job_file),
                                     str(result_file)], stderr=err, stdout=err)
            rc = watch_child(proc, result_file, args)
        lines = [json.loads(l) for l in result_file.read_text().splitlines() if l.strip()]
        started = any(rec["id"] == "ready" for rec in lines)
        for rec in lines:
            if rec["id"] == "ready":
                continue
            if rec["id"] == "calibration":
                calibration = rec
            else:
                results[rec["id"]] = rec
        with open(Path(out_dir) / "log.txt", "a") as log_file:
            log_file.write(stderr_path.read_text())
        pending = [j for j in pending if j["id"] not in results]
        if not pending:
            break
        tail = "; ".join(stderr_path.read_text().strip().splitlines()[-3:])
        fruitless = 0 if started else fruitless + 1
        if fruitless >= 2:  # the child cannot start at all (no torch, no GPU)
            for j in pending:
                results[j["id"]] = {"status": "CRASH", "error": f"child: {tail}"[:400]}
            break
        if rc == "timeout":
            results[pending[0]["id"]] = {"status": "TIMEOUT", "error": f"no progress in "
                                         f"{args.run_timeout} s; {tail}"[:400]}
        elif rc == "budget":
            for j in pending:
                results[j["id"]] = {"status": "SKIPPED", "error": "time budget spent"}
        elif rc == CHILD_RESTART:
            pass  # the failing job is recorded; the context is gone
        else:
            results[pending[0]["id"]] = {"status": "CRASH",
                                         "error": f"child exited with {rc}: {tail}"[:400]}
        if calibration is None:
            calibration = {"error": "calibration did not finish"}
        pending = [j for j in pending if j["id"] not in results]
    return results, calibration


def watch_child(proc, result_file, args):
    last_size, last_change = -1, time.time()
    while True:
        try:
            return proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        size = result_file.stat().st_size
        if size != last_size:
            last_size, last_change = size, time.time()
        now = time.time()
        if now - last_change > args.run_timeout or now > args.deadline:
            proc.kill()
            proc.wait()
            return "timeout" if now <= args.deadline else "budget"


def make_jobs(builds, args):
    jobs = []
    seed = args.seed
    for b in builds:
        if b["status"] != "compiled":
            continue
        timed = not args.no_timing and (args.time_all or not
                                        ({"check", "ragged"} & set(b["tags"])))
        for r in b["runs"]:
            seed += 1
            jobs.append({"id": f"{len(jobs)}", "stem": b["stem"], "label": b["label"],
                         "run_label": r["label"], "target": b["target"], "so": b["so"],
                         "manifest": b["manifest"], "params": b["params"],
                         "symbols": r["symbols"], "time": timed, "seed": seed,
                         "build_key": b["key"], "group": b["group"], "tile": b["tile"],
                         "goal": b["goal"]})
    return jobs


# --- reporting ---------------------------------------------------------------------------------

def summarize(job, rec, calibration):
    row = {"example": job["stem"], "config": job["label"], "run": job["run_label"],
           "target": job["target"], "status": rec.get("status", "?"),
           "error": rec.get("error", ""), "max_rel_err": rec.get("max_rel_err"),
           "group": job.get("group", job["label"]), "tile": job.get("tile"),
           "goal": job.get("goal"), "sanitizer": sanitize.describe(rec)}
    timing, work = rec.get("timing"), rec.get("work") or {}
    if not timing:
        return row
    ms = timing["tilec"]["ms"]
    row["ms"] = ms
    row["bound"] = work.get("bound")
    if work.get("bytes"):
        row["GBps"] = work["bytes"] / ms / 1e6
        copy = (calibration or {}).get("copy_GBps")
        if copy:
            row["pct_copy"] = 100 * row["GBps"] / copy
    if work.get("flops"):
        row["TFLOPs"] = work["flops"] / ms / 1e9
    if "torch" in timing:
        row["torch_ms"] = timing["torch"]["ms"]
        row["speedup"] = timing["torch"]["ms"] / ms
        row["baseline"] = timing.get("torch_name")
    row["baseline_short"] = timing.get("torch_short") or "torch"
    extras = {}
    for name, t in (timing.get("extras") or {}).items():
        extras[name] = {"ms": t["ms"]}
        if work.get("flops"):
            extras[name]["TFLOPs"] = work["flops"] / t["ms"] / 1e9
    extras.update({name: {"error": err} for name, err in
                   (timing.get("extra_errors") or {}).items()})
    if extras:
        row["extras"] = extras
    # Extras named *-same-bytes copy the run's byte count (refs.decode_copy):
    # the copy bandwidth at this size, next to the calibration's 2 GiB copy.
    same = [t["ms"] for name, t in (timing.get("extras") or {}).items()
            if name.endswith(SAME_BYTES)]
    if same and work.get("bytes"):
        row["pct_copy_same"] = 100 * min(same) / ms
    return row


SAME_BYTES = "-same-bytes"


def fmt(v, spec):
    return "" if v is None else format(v, spec)


def aligned(head, body):
    """Lines of a table with left-aligned columns."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)] if body else \
        [len(h) for h in head]
    return ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()
            for line in [head] + body]


def perf_rows(rows):
    """The compute-bound timed runs that passed, grouped by example, build
    (before tile candidates), run and target; per group the fastest tile
    candidate against the torch baseline and the extra baselines."""
    groups, tried = {}, {}
    for r in rows:
        key = (r["example"], r["group"], r["run"], r["target"])
        tried[key] = tried.get(key, 0) + 1
        if r["status"] == "PASS" and r.get("bound") == "compute" and "TFLOPs" in r:
            groups.setdefault(key, []).append(r)
    out = []
    for (example, group, run, target), cands in groups.items():
        best = min(cands, key=lambda r: r["ms"])
        row = {"example": example, "shape": group, "run": run, "target": target,
               "tile": best.get("tile"), "ms": best["ms"], "TFLOPs": best["TFLOPs"],
               "candidates": [{"tile": c.get("tile"), "ms": c["ms"], "TFLOPs": c["TFLOPs"]}
                              for c in cands],
               "tried": tried[(example, group, run, target)],
               "baseline": best.get("baseline_short"), "goal": best.get("goal")}
        if "speedup" in best:
            row["baseline_ms"] = best["torch_ms"]
            row["baseline_TFLOPs"] = best["TFLOPs"] / best["speedup"]
            row["ratio"] = best["speedup"]  # tilec TFLOP/s over the baseline's
            if row["goal"] is not None:
                row["met"] = row["ratio"] >= row["goal"]
        row["extras"] = {name: e.get("TFLOPs") for name, e in (best.get("extras") or {}).items()}
        out.append(row)
    return out


def perf_section(perf):
    """Per example, a table of TFLOP/s: tilec (best tile candidate), its
    torch baseline, the extra baselines, the ratio to the torch baseline and
    the goal."""
    if not perf:
        return []
    lines = ["", "TFLOP/s against the baselines (compute-bound runs that passed; per "
             "shape the fastest of its n tile candidates; x BASE = tilec TFLOP/s / BASE "
             "TFLOP/s)"]
    for example in dict.fromkeys(r["example"] for r in perf):
        rs = [r for r in perf if r["example"] == example]
        base = next((r["baseline"] for r in rs if r.get("baseline")), "torch")
        extras = list(dict.fromkeys(n for r in rs for n in r["extras"]))
        with_run = any(r["run"] for r in rs)
        with_goal = any(r.get("goal") is not None for r in rs)
        head = ["shape"] + (["run"] if with_run else []) + \
            ["tgt", "tile (of n)", "ms", "tilec", base, *extras, f"x {base}"] + \
            (["goal", "met"] if with_goal else [])
        body = []
        for r in rs:
            n, tried = len(r["candidates"]), r["tried"]
            tile = (r["tile"] or "-") + (f" ({n} passed of {tried})" if n < tried else
                                         f" ({n})" if n > 1 else "")
            goal = r.get("goal")
            body.append([r["shape"]] + ([r["run"]] if with_run else []) + [
                r["target"], tile, fmt(r["ms"], ".4f"), fmt(r["TFLOPs"], ".1f"),
                fmt(r.get("baseline_TFLOPs"), ".1f"),
                *[fmt(r["extras"].get(e), ".1f") for e in extras],
                fmt(r.get("ratio"), ".2f") + ("x" if "ratio" in r else "")] + (
                [f">= {goal:.2f}x" if goal is not None else "",
                 {True: "yes", False: "NO"}.get(r.get("met"), "")] if with_goal else []))
        lines += ["", f"{example}:"] + ["  " + line for line in aligned(head, body)]
    return lines


def table(rows, builds, calibration, perf=()):
    same = any("pct_copy_same" in r for r in rows)
    head = ["example", "config", "run", "tgt", "status", "rel err", "ms", "torch ms",
            "x torch", "GB/s", "%copy"] + (["%copy same bytes"] if same else []) + ["TFLOP/s"]
    body = []
    for r in rows:
        memory = r.get("bound") == "memory"
        body.append([r["example"], r["config"], r["run"], r["target"], r["status"],
                     fmt(r.get("max_rel_err"), ".1e"), fmt(r.get("ms"), ".4f"),
                     fmt(r.get("torch_ms"), ".4f"), fmt(r.get("speedup"), ".2f"),
                     fmt(r.get("GBps"), ".0f") if memory or "TFLOPs" not in r else "",
                     fmt(r.get("pct_copy"), ".0f") if memory else ""] +
                    ([fmt(r.get("pct_copy_same"), ".0f")] if same else []) +
                    [fmt(r.get("TFLOPs"), ".1f") if not memory else ""])
    if any(r.get("sanitizer") for r in rows):
        head.append("sanitizer")
        for line, r in zip(body, rows):
            line.append(r.get("sanitizer") or "")
    lines = aligned(head, body) + perf_section(perf)
    errors = [r for r in rows if r["status"] not in ("PASS",) and r.get("error")]
    if errors:
        lines.append("")
        lines += [f"{r['status']}: {r['example']} / {r['config']}"
                  f"{' / ' + r['run'] if r['run'] else ''} ({r['target']}): {r['error']}"
                  for r in errors]
    bad_builds = [b for b in builds if b["status"] != "compiled"]
    if bad_builds:
        lines.append("")
        lines += [f"{b['status']}: {b['stem']} / {b['label']} ({b['target']}): "
                  f"{b.get('error', '')}" for b in bad_builds]
    cal = calibration or {}
    lines.append("")
    if same:
        lines.append("%copy: of the calibration's copy bandwidth (2 GiB buffers, the goals' "
                     "measure); %copy same bytes: of the faster of a memcpy and a copy "
                     "kernel moving the run's byte count, timed in the same run")
    lines.append(
        f"device: {cal.get('gpu', '?')}; copy {fmt(cal.get('copy_GBps'), '.0f')} GB/s; "
        f"cuBLAS fp16 8192^3 {fmt(cal.get('cublas_fp16_8192_TFLOPs'), '.0f')} TFLOP/s")
    counts = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    compiled = sum(b["status"] == "compiled" for b in builds)
    lines.append(f"builds: {compiled} compiled, {len(builds) - compiled} not; runs: " +
                 ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return "\n".join(lines)


def device_cc():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
        major, minor = out.strip().splitlines()[0].split(".")
        return int(major) * 10 + int(minor)
    except Exception:
        return None


def tool_version(cmd):
    rc, out = run_tool(cmd, 30)
    return out.strip().splitlines()[-1] if out.strip() else f"(rc {rc})"


def write_sources(builds, args, out_dir):
    """The generated code, manifests and tool logs of every build."""
    with tarfile.open(Path(out_dir) / "sources.tar.gz", "w:gz") as tar:
        for b in builds:
            d = Path(args.work) / b["stem"] / b["target"] / b["key"]
            if not d.is_dir():
                continue
            for f in sorted(d.iterdir()):
                if f.suffix in (".cu", ".h", ".json", ".log"):
                    tar.add(f, arcname=f"{b['stem']}/{b['target']}/{b['key']}/{f.name}")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilec", default=os.environ.get("TILEC"),
                    help="tilec binary (default: $TILEC, bench/bin/tilec, build/tools/tilec/tilec)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--targets", default="sm_90", help="comma-separated tilec targets")
    ap.add_argument("--only", default="", help="comma-separated examples (file stems)")
    ap.add_argument("--skip", default="", help="comma-separated examples to leave out")
    ap.add_argument("--quick", action="store_true", help="first configuration of each example")
    ap.add_argument("--no-paper", action="store_true", help="leave out the paper's shapes")
    ap.add_argument("--no-timing", action="store_true", help="check only")
    ap.add_argument("--match", default="",
                    help="only the builds whose 'example label' matches this regex")
    ap.add_argument("--timed-only", action="store_true",
                    help="leave out the check and ragged configurations (untimed by default)")
    ap.add_argument("--time-all", action="store_true", help="also time check/ragged configs")
    ap.add_argument("--compile-only", action="store_true", help="no GPU needed")
    ap.add_argument("--no-graphs", action="store_true", help="time eager launches")
    ap.add_argument("--sanitize", default="",
                    help="comma-separated compute-sanitizer tools (memcheck,racecheck,synccheck,"
                    "initcheck): check the small configurations (tags check, ragged; or "
                    "--match's) and run each that passed again under every tool; no timing")
    ap.add_argument("--sanitize-timeout", type=float, default=300,
                    help="seconds one run under one tool may take")
    ap.add_argument("--checks", type=int, default=2, help="checks with fresh data per run")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions (median)")
    ap.add_argument("--target-ms", type=float, default=2.0, help="time per repetition")
    ap.add_argument("--budget", type=float, default=0, help="seconds for the whole run (0: none)")
    ap.add_argument("--run-timeout", type=float, default=120,
                    help="seconds without a finished run before the child is killed")
    ap.add_argument("--arch", type=int, help="device compute capability, e.g. 90 "
                    "(default: from nvidia-smi)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(3), "little"))
    ap.add_argument("--out", default=os.environ.get("OUT") or str(BENCH_DIR / "out"))
    ap.add_argument("--work", default="/tmp/tilec-bench")
    ap.add_argument("--selftest-refs", action="store_true",
                    help="run bench/refs.py's references and baselines only (GPU, no tilec)")
    ap.add_argument("--strict", action="store_true", help="builds that fail count as failures")
    ap.add_argument("--tiles", default="",
                    help="tile candidates for the builds that have them (the timed GEMMs): "
                    "comma-separated names of bench/configs.py's TILES, or 'all' "
                    "(default: each build's own list)")
    ap.add_argument("--list", "--dry-run", dest="list", action="store_true",
                    help="print the planned builds and runs and exit (no tilec, nvcc or GPU)")
    return ap.parse_args(argv)


def resolve_tilec(path):
    for cand in [path, BENCH_DIR / "bin" / "tilec", ROOT / "build" / "tools" / "tilec" / "tilec"]:
        if cand and os.access(str(cand), os.X_OK):
            return str(Path(cand).resolve())
    sys.exit("error: no tilec binary (pass --tilec PATH or carry build/tools/tilec/tilec)")


def spec_problems(spec, b):
    """Evaluates the buffer shapes and the work of build B's runs with its
    Spec (no GPU needed), so a configuration bench/refs.py cannot describe
    shows up before the device run."""
    from refs import Params
    out = []
    for r in b["runs"]:
        try:
            p = Params(b["params"])
            spec.shapes(p, r["symbols"])
            spec.work(p, r["symbols"])
        except Exception as e:
            out.append(f"{b['stem']} / {b['label']} / {r['label'] or '-'}: bench/refs.py "
                       f"raised {type(e).__name__}: {e}")
    return out


def list_plan(args):
    """--list: the builds and runs the other options select, without running
    anything. Returns 1 when a build sets a parameter its factory lacks or an
    example has no reference in bench/refs.py (checked where torch imports)."""
    builds = plan_builds(args)
    try:
        from refs import SPECS
    except ImportError as e:
        SPECS = None
        log(f"note: bench/refs.py not checked ({e})")
    problems = []
    for stem in args.examples:
        if not CONFIGS.get(stem):
            problems.append(f"{stem}: no configurations in bench/configs.py")
        elif SPECS is not None and stem not in SPECS:
            problems.append(f"{stem}: no Spec in bench/refs.py")
    head = ["example", "config", "tgt", "tags", "timed", "runs", "-D"]
    body, runs, timed_runs = [], 0, 0
    for b in builds:
        timed = not args.no_timing and (args.time_all or not
                                        ({"check", "ragged"} & set(b["tags"])))
        runs += len(b["runs"])
        timed_runs += len(b["runs"]) if timed else 0
        body.append([b["stem"], b["label"], b["target"], ",".join(b["tags"]) or "-",
                     "yes" if timed else "no",
                     ", ".join(r["label"] or "-" for r in b["runs"]),
                     " ".join(f"{k}={define_text(v)}" for k, v in b["defines"].items())])
        if b["unknown_params"]:
            problems.append(f"{b['stem']} / {b['label']}: the factory has no parameter "
                            f"{', '.join(b['unknown_params'])}")
        if SPECS is not None and b["stem"] in SPECS:
            problems += spec_problems(SPECS[b["stem"]], b)
    print("\n".join(aligned(head, body)))
    print(f"\n{len(builds)} builds (tilec + nvcc each), {runs} runs, {timed_runs} timed; "
          f"targets {','.join(args.targets)}")
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


def main(argv):
    if argv[:1] == ["--child"]:
        child_main(argv[1], argv[2])
        return 0
    t0 = time.time()
    args = parse_args(argv)
    args.deadline = t0 + args.budget if args.budget > 0 else math.inf
    args.targets = [t for t in args.targets.split(",") if t]
    known = sorted(p.stem for p in (ROOT / "examples").glob("*.tile"))
    only = [s for s in args.only.split(",") if s]
    unknown = [s for s in only if s not in known]
    if unknown:
        sys.exit(f"error: unknown examples {unknown}; known: {', '.join(known)}")
    skip = set(s for s in args.skip.split(",") if s)
    args.examples = [s for s in (only or known) if s not in skip]
    args.tiles = [t for t in args.tiles.split(",") if t]
    args.sanitize = sanitize.parse_tools(args.sanitize)
    args.no_timing = args.no_timing or bool(args.sanitize)
    bad_tiles = [t for t in args.tiles if t != "all" and t not in TILES]
    if bad_tiles:
        sys.exit(f"error: unknown tile configurations {bad_tiles}; known: {', '.join(TILES)}")
    if args.list:
        return list_plan(args)
    if args.selftest_refs:
        return 1 if selftest_refs(args) else 0
    args.tilec = resolve_tilec(args.tilec)
    args.device_cc = args.arch or device_cc()
    if args.device_cc is None:
        if not args.compile_only:
            sys.exit("error: no GPU found (nvidia-smi); use --compile-only --arch 90")
        args.device_cc = 90
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "log.txt").write_text("")
    shutil.rmtree(args.work, ignore_errors=True)
    Path(args.work).mkdir(parents=True)

    builds = plan_builds(args)
    log(f"compiling {len(builds)} builds with {args.jobs} jobs ({args.tilec})")
    compile_all(builds, args)
    log(f"compiled in {time.time() - t0:.0f} s")
    jobs = make_jobs(builds, args)
    results, calibration = ({}, None) if args.compile_only or not jobs else \
        run_children(jobs, args, out_dir)
    if args.sanitize:
        sanitize.sanitize_jobs(jobs, results, args.sanitize, args)
    unrun = {"status": "COMPILED" if args.compile_only else "NOT RUN"}
    rows = [summarize(j, results.get(j["id"], unrun), calibration) for j in jobs]
    perf = perf_rows(rows)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "seed": args.seed,
            "tilec": args.tilec, "tilec_version": tool_version([args.tilec, "--version"]),
            "nvcc_version": tool_version([args.nvcc, "--version"]),
            "device_cc": args.device_cc, "targets": args.targets,
            "argv": argv, "seconds": round(time.time() - t0, 1),
            "calibration": calibration}
    for j in jobs:
        j["result"] = results.get(j["id"], unrun)
    builds_out = [{k: v for k, v in b.items() if k not in ("params",)} for b in builds]
    (out_dir / "results.json").write_text(json.dumps(
        {"meta": meta, "builds": builds_out, "runs": jobs, "table": rows,
         "perf": perf}, indent=1,
        default=str))
    text = table(rows, builds, calibration, perf)
    (out_dir / "table.txt").write_text(text + "\n")
    write_sources(builds, args, out_dir)
    print(text)
    failed = [r for r in rows if r["status"] not in ("PASS", "SKIPPED", "COMPILED")]
    if args.strict:
        failed += [b for b in builds if b["status"] != "compiled"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
