"""bench/run.py --sanitize: the checked runs again under compute-sanitizer.

Each run that passed its check is repeated in a fresh child process (one
check, no timing) under each named compute-sanitizer tool. The tool is told
to instrument only the run's own kernels (tilec names them LAUNCHER_kernelN),
so torch's reference kernels run at full speed and their hazards, which are
not ours, are not reported. A tool is "clean" when it exits without its error
code and prints its summary; a run it does not finish within the timeout is
"timed out", which counts as a failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SANITIZER_ERROR = 97
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


def parse_tools(text):
    tools = [t for t in text.split(",") if t]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        sys.exit(f"error: unknown compute-sanitizer tools {unknown}; known: {', '.join(TOOLS)}")
    return tools


def kernel_filter(binary):
    """The option that restricts instrumentation to kernels whose name holds a
    substring: its spelling changed across compute-sanitizer releases."""
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    for option in ("--kernel-name", "--kernel-regex", "--filter"):
        if re.search(rf"^\s*{re.escape(option)}\b", help_text, re.M):
            return option
    return None


def kernel_prefix(manifest):
    """A substring of the names of every kernel the manifest's launchers
    start (LAUNCHER_kernel, LAUNCHER_kernel0, ...), or "" when they share none."""
    launchers = [k["launcher"] for k in manifest["kernels"]]
    if len(launchers) == 1:
        return launchers[0] + "_kernel"
    return os.path.commonprefix(launchers)


def summary_of(text):
    lines = [l.replace("=========", "").strip() for l in text.splitlines() if "SUMMARY" in l]
    return lines[-1] if lines else ""


def sanitize_job(job, tool, ctx):
    """Runs JOB once under TOOL; returns {"tool", "ok", "summary"}."""
    work = Path(ctx["work"])
    job_file = work / f"sanitize-{job['id']}-{tool}.json"
    result_file = work / f"sanitize-{job['id']}-{tool}.jsonl"
    settings = {"deadline": float("inf"), "checks": 1, "reps": 1, "target_ms": 1.0,
                "max_inner": 1, "max_sets": 1, "graphs": False, "calibrate": False}
    job_file.write_text(json.dumps({"settings": settings, "jobs": [dict(job, time=False)]}))
    result_file.write_text("")
    manifest = json.loads(Path(job["manifest"]).read_text())
    cmd = [ctx["binary"], "--tool", tool, "--error-exitcode", str(SANITIZER_ERROR)]
    prefix = kernel_prefix(manifest)
    if ctx["filter"] and prefix:
        cmd += [ctx["filter"], f"kns={prefix}"]
    cmd += [sys.executable, ctx["run_py"], "--child", str(job_file), str(result_file)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=ctx["timeout"])
    except subprocess.TimeoutExpired:
        return {"tool": tool, "ok": False, "summary": f"timed out after {ctx['timeout']} s"}
    records = [json.loads(l) for l in result_file.read_text().splitlines() if l.strip()]
    rec = next((rec for rec in records if rec.get("id") == job["id"]), {})
    status = rec.get("status")
    summary = summary_of(r.stdout + r.stderr)
    ok = r.returncode != SANITIZER_ERROR and bool(summary) and status == "PASS"
    if status != "PASS":
        summary = (f"run under the tool: {status or 'no result'} "
                   f"({rec.get('error', '')}); {summary}")
    return {"tool": tool, "ok": ok, "summary": summary}


def sanitize_jobs(jobs, results, tools, args):
    """Adds a "sanitizer" list to the result of every passing job of JOBS."""
    binary = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    ctx = {"binary": binary, "filter": kernel_filter(binary), "work": args.work,
           "timeout": args.sanitize_timeout, "run_py": str(Path(__file__).with_name("run.py"))}
    passed = [j for j in jobs if results.get(j["id"], {}).get("status") == "PASS"]
    # The tools slow the kernels down a hundredfold and more, and most of a
    # run is the host's; several runs share the GPU well.
    with ThreadPoolExecutor(max(1, min(args.jobs, 8))) as pool:
        verdicts = list(pool.map(lambda jt: sanitize_job(jt[0], jt[1], ctx),
                                 [(j, t) for j in passed for t in tools]))
    for i, job in enumerate(passed):
        rec = results[job["id"]]
        rec["sanitizer"] = verdicts[i * len(tools):(i + 1) * len(tools)]
        bad = [s for s in rec["sanitizer"] if not s["ok"]]
        if bad:
            rec["status"] = "SANITIZE"
            rec["error"] = f"{bad[0]['tool']}: {bad[0]['summary']}"


def describe(rec):
    """The table's column: each tool's verdict, e.g. "memcheck:clean racecheck:clean"."""
    return " ".join(f"{s['tool']}:{'clean' if s['ok'] else 'FAIL'}"
                    for s in rec.get("sanitizer", []))
