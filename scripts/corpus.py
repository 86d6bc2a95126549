#!/usr/bin/env python3
"""Run tilec over TileLang's own examples, unchanged, and report per file.

    python3 scripts/corpus.py TILELANG_CHECKOUT [--tilec PATH] [--nvcc PATH]
                              [--jobs N] [--only SUBSTR] [--json FILE]
                              [--no-nvcc] [--derive-defines] [--verbose]

The corpus is every `examples/**/*.py` of the checkout that holds a
`T.Kernel`, less AMD-only, sm100/sm120/tcgen05 and test/regression/benchmark
files (the rules are CORPUS_EXCLUDE and TCGEN05_SOURCE below). Nothing of TileLang is read but
those files, and nothing of it is copied into this project.

Per file the script records four steps, each only tried when the one before
passed:

  ir      tilec FILE --emit=ir                          (front end + Sema)
  sm80    tilec FILE --emit=cuda --target=sm_80         (every pass)
  sm90    tilec FILE --emit=cuda --target=sm_90
  nvcc    nvcc -c for sm_90a on the sm_90 output (and sm_80 on the sm_80
          output, when there is one)

tilec takes each file as it is, without -D values: it runs the file's own
driver to find the arguments its kernels are called with (docs/language.md,
"Factory parameters"). --derive-defines adds the -D values a user would read
off the example, from `call_site_defines` (the first call of the factory
whose arguments resolve to constants through literals, module constants,
the enclosing function's defaults and local assignments, and argparse
defaults; bench/corpus_check.py uses it for its references); --verbose
prints them. The table lists every file with its first failing step and
the first line of tilec's error, then the totals.
"""

import argparse
import ast
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
# Tensor memory (T.alloc_tmem) exists only on sm_100 and later, where it
# feeds tcgen05 MMAs: files that allocate it are sm100/tcgen05 programs
# even when their path does not say so (examples/aws/).
TCGEN05_SOURCE = re.compile(r"\bT\.alloc_tmem\b")
HOPPER_ONLY = re.compile(r"needs sm_90|requires sm_90|Hopper")
TIMEOUT_S = 60


def corpus(checkout: Path, only: str):
    files = []
    for p in sorted((checkout / "examples").rglob("*.py")):
        rel = p.relative_to(checkout).as_posix()
        if CORPUS_EXCLUDE.search(rel) or only not in rel:
            continue
        text = p.read_text(errors="replace")
        if "T.Kernel" not in text or TCGEN05_SOURCE.search(text):
            continue
        files.append((rel, p))
    return files


class _Unresolved(Exception):
    pass


_PURE_CALLS = {"min": min, "max": max, "int": int, "float": float, "abs": abs}


def _argparse_defaults(tree):
    """--name -> default for every add_argument call in the file."""
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument" and node.args):
            continue
        flag = node.args[-1]
        if not isinstance(flag, ast.Constant) or not isinstance(flag.value, str):
            continue
        dest = flag.value.lstrip("-").replace("-", "_")
        for kw in node.keywords:
            if kw.arg == "default":
                out[dest] = kw.value
            elif kw.arg == "dest" and isinstance(kw.value, ast.Constant):
                dest = kw.value.value
        if dest not in out and any(kw.arg == "action" for kw in node.keywords):
            out[dest] = ast.Constant(False)
    return out


class _Resolver:
    """Evaluates a call argument of the host code to a constant."""

    def __init__(self, tree):
        self.tree = tree
        self.module = {}
        self._bind_block(tree.body)
        self.argparse = _argparse_defaults(tree)
        self.funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        self.depth = 0
        self.steps = 0

    def _bind_block(self, body):
        """Module-level assignments, those under `if __name__ == ...` too."""
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._bind(self.module, node.targets[0], node.value)
            elif isinstance(node, ast.If):
                self._bind_block(node.body)

    @staticmethod
    def _bind(env, target, value):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                _Resolver._bind(env, t, v)
        elif isinstance(target, ast.Tuple):
            # `b, s, h, d = q.shape`, `cfg, sm = get_config()`: element i of
            # the value, resolved when used.
            for i, t in enumerate(target.elts):
                _Resolver._bind(env, t, ast.Subscript(value=value, slice=ast.Constant(i)))

    def eval(self, node, env, func):
        self.depth += 1
        # Resolution tries several sources per name: bound the depth and the
        # total work so a file's host code cannot make it exponential.
        self.steps += 1
        try:
            if self.depth > 24 or self.steps > 50000:
                raise _Unresolved()
            return self._eval(node, env, func)
        finally:
            self.depth -= 1

    def _eval(self, node, env, func):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.eval(node.operand, env, func)
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left, env, func), self.eval(node.right, env, func)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Pow: lambda: a ** b,
                   ast.LShift: lambda: a << b, ast.Div: lambda: a / b}
            if type(node.op) in ops:
                return ops[type(node.op)]()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _PURE_CALLS and not node.keywords:
            return _PURE_CALLS[node.func.id](*[self.eval(a, env, func) for a in node.args])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "dict" and not node.args:
            return {kw.arg: self.eval(kw.value, env, func) for kw in node.keywords}
        if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
            return {self.eval(k, env, func): self.eval(v, env, func)
                    for k, v in zip(node.keys, node.values)}
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.eval(e, env, func) for e in node.elts)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, env, func)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in self.funcs:
            return self._run(self.funcs[node.func.id], node, env, func)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in ("T", "torch", "tl"):
                return node.attr
            if isinstance(node.value, ast.Name) and node.attr in self.argparse:
                return self.eval(self.argparse[node.attr], {}, None)
        if isinstance(node, ast.Name):
            return self._name(node.id, env, func)
        raise _Unresolved()

    def _name(self, name, env, func):
        """A local binding, else a parameter, else a module constant: the
        first of them that resolves (`N, D = x.shape` on a tensor the host
        code cannot trace falls back to the module's `N, D = 4096, 8192`)."""
        tries = []
        if name in env:
            tries.append(lambda: self.eval(env[name], {}, None) if env is self.module
                         else self.eval(env[name], env, func))
        if func is not None:
            tries.append(lambda: self._param(name, func))
        if name in self.module:
            tries.append(lambda: self.eval(self.module[name], self.module, None))
        for attempt in tries:
            try:
                return attempt()
            except (_Unresolved, IndexError, KeyError, TypeError):
                continue
        raise _Unresolved()

    def _subscript(self, node, env, func):
        idx = self.eval(node.slice, env, func)
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "shape":
            return _tensor_shape(self, base.value, env, func)[idx]
        return self.eval(base, env, func)[idx]

    def _run(self, fdef, call, env, func):
        """A helper that computes a configuration: assignments, ifs on
        constants and a return, with the call's arguments bound."""
        local = {}
        params = [a.arg for a in fdef.args.args]
        for p, d in zip(params[len(params) - len(fdef.args.defaults):], fdef.args.defaults):
            local[p] = d
        for p, a in zip(params, call.args):
            local[p] = ast.Constant(self.eval(a, env, func))
        return self._exec(fdef.body, local, fdef)

    def _exec(self, body, local, fdef):
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                self._bind(local, stmt.targets[0], stmt.value)
            elif isinstance(stmt, ast.Return) and stmt.value is not None:
                return self.eval(stmt.value, local, fdef)
            elif isinstance(stmt, ast.If):
                try:
                    taken = self.eval(stmt.test, local, fdef)
                except _Unresolved:
                    taken = False  # device-dependent branches: the general one
                out = self._exec(stmt.body if taken else stmt.orelse, local, fdef)
                if out is not None:
                    return out
            elif isinstance(stmt, (ast.Expr, ast.Raise, ast.Assert, ast.Pass)):
                continue
            else:
                raise _Unresolved()
        return None

    def _param(self, name, func):
        """A parameter of func: its default, or its value at a call site."""
        args = func.args
        params = args.args + args.kwonlyargs
        for i, a in enumerate(args.args):
            if a.arg != name:
                continue
            for call in self._calls(func.name):
                try:
                    if i < len(call.args):
                        return self.eval(call.args[i], self._env_of(call), self._func_of(call))
                    for kw in call.keywords:
                        if kw.arg == name:
                            return self.eval(kw.value, self._env_of(call), self._func_of(call))
                except _Unresolved:
                    continue
            defaults = args.defaults
            k = i - (len(args.args) - len(defaults))
            if k >= 0:
                return self.eval(defaults[k], self.module, None)
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            if a.arg == name and d is not None:
                return self.eval(d, self.module, None)
        if name in self.module:
            return self.eval(self.module[name], self.module, None)
        raise _Unresolved()

    def _calls(self, fname):
        return [n for n in ast.walk(self.tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name) and n.func.id == fname]

    def _func_of(self, node):
        for f in self.funcs.values():
            if any(n is node for n in ast.walk(f)):
                inner = [g for g in ast.walk(f) if isinstance(g, ast.FunctionDef) and g is not f
                         and any(n is node for n in ast.walk(g))]
                return inner[-1] if inner else f
        return None

    def _env_of(self, node):
        func = self._func_of(node)
        if func is None:
            return self.module
        env = {}
        for stmt in ast.walk(func):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and stmt.lineno < node.lineno:
                self._bind(env, stmt.targets[0], stmt.value)
        return env


def _define_text(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise _Unresolved()


def call_site_defines(path: Path):
    """-D values for the factory parameters that have no default."""
    try:
        tree = ast.parse(path.read_text(errors="replace"))
    except SyntaxError:
        return []
    res = _Resolver(tree)
    defines = {}
    for f in tree.body:
        if not isinstance(f, ast.FunctionDef):
            continue
        tensors = _tensor_params(f)
        first_default = len(f.args.args) - len(f.args.defaults)
        needed = [a.arg for a in f.args.args[:first_default] if a.arg not in tensors]
        # `block_M=None` parameters that the kernel cannot do without are
        # given at the call (`kernel.get_tir(block_M=128, ...)`).
        unset = [a.arg for i, a in enumerate(f.args.args[first_default:])
                 if _is_none(f.args.defaults[i])]
        if not needed and not unset and not _const_names(f):
            continue
        for call in res._calls(f.name) + _compile_calls(tree, f.name):
            got = {}
            named = [(f.args.args[i].arg, a) for i, a in enumerate(call.args[:len(f.args.args)])]
            named += [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
            for kw in call.keywords:
                if kw.arg is None:  # **config
                    try:
                        spread = res.eval(kw.value, res._env_of(call), res._func_of(call))
                        named += [(k, ast.Constant(v)) for k, v in spread.items()]
                    except (_Unresolved, AttributeError, TypeError):
                        pass
            for name, expr in named:
                if name in tensors:
                    continue
                try:
                    got[name] = _define_text(res.eval(expr, res._env_of(call), res._func_of(call)))
                except _Unresolved:
                    pass
            got.update(_const_dims(res, f, call, got))
            wanted = unset + _const_names(f)
            if all(n in got for n in needed) and (needed or any(n in got for n in wanted)):
                for k, v in got.items():
                    defines.setdefault(k, v)
                break
    return [f"-D{k}={v}" for k, v in defines.items()]


def _tensor_params(f):
    """Parameters of an eager kernel that are tensors (annotated so)."""
    out = {a.arg for a in f.args.args
           if a.annotation is not None and "Tensor" in ast.unparse(a.annotation)}
    for node in ast.walk(f):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is None:
            out.add(node.target.id)
    return out


_TENSOR_MAKERS = {"randn", "rand", "empty", "zeros", "ones", "randn_like", "full", "randint"}


def _const_names(f):
    """Names bound by `a, b = T.const("a, b")` in an eager kernel."""
    out = []
    for node in ast.walk(f):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr == "const":
            for t in node.targets:
                out += [e.id for e in (t.elts if isinstance(t, ast.Tuple) else [t])
                        if isinstance(e, ast.Name)]
    return out


def _tensor_annotations(f):
    """param -> the shape expression of its T.Tensor annotation."""
    out = {}
    locals_ = {}
    for node in ast.walk(f):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            locals_[node.targets[0].id] = node.value
    anns = [(a.arg, a.annotation) for a in f.args.args if a.annotation is not None]
    anns += [(n.target.id, n.annotation) for n in ast.walk(f)
             if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    for name, ann in anns:
        shape = None
        if isinstance(ann, ast.Call) and ann.args:
            shape = ann.args[0]
        elif isinstance(ann, ast.Subscript):
            idx = ann.slice
            shape = idx.elts[0] if isinstance(idx, ast.Tuple) and idx.elts else idx
        if isinstance(shape, ast.Name) and shape.id in locals_:
            shape = locals_[shape.id]
        if isinstance(shape, (ast.List, ast.Tuple)):
            out[name] = shape.elts
    return out


def _tensor_shape(res, expr, env, func):
    """The shape a host tensor expression was created with, as constants."""
    if isinstance(expr, ast.Name) and expr.id in env:
        return _tensor_shape(res, env[expr.id], env, func)
    if not isinstance(expr, ast.Call):
        raise _Unresolved()
    fn = expr.func
    if isinstance(fn, ast.Attribute) and fn.attr not in _TENSOR_MAKERS:
        return _tensor_shape(res, fn.value, env, func)  # .cuda(), .half(), ...
    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
    if name not in _TENSOR_MAKERS:
        raise _Unresolved()
    args = expr.args
    if name == "randint":
        size = [kw.value for kw in expr.keywords if kw.arg == "size"] or args[2:3]
        args = size
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    return [res.eval(a, env, func) for a in args]


def _const_dims(res, f, call, got):
    """T.const names of an eager kernel, read off the tensors it is called with."""
    consts = set(_const_names(f))
    if not consts:
        return {}
    out = {}
    shapes = _tensor_annotations(f)
    params = [a.arg for a in f.args.args]
    bound = dict(zip(params, call.args))
    bound.update({kw.arg: kw.value for kw in call.keywords if kw.arg})
    env, func = res._env_of(call), res._func_of(call)
    for p, dims in shapes.items():
        if p not in bound:
            continue
        try:
            values = _tensor_shape(res, bound[p], env, func)
        except (_Unresolved, IndexError):
            continue
        for d, v in zip(dims, values):
            if isinstance(d, ast.Name) and d.id in consts and d.id not in got:
                out[d.id] = _define_text(v)
    return out


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def _compile_calls(tree, fname):
    """`f.compile(...)`/`f.get_tir(...)` calls of a @tilelang.jit function."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr in ("compile", "get_tir")
            and isinstance(n.func.value, ast.Name) and n.func.value.id == fname]


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
    defines = call_site_defines(path) if args.derive_defines else []
    out = {"file": rel, "ir": False, "sm80": False, "sm90": False,
           "nvcc90": None, "nvcc80": None, "error": "", "defines": defines}
    rc, text = run([args.tilec, str(path), *defines, "--emit=ir", "--target=sm_90", "-o", f"{tmp}/{stem}.tir"])
    if rc != 0:
        out["error"] = "ir: " + first_error(text)
        return out
    out["ir"] = True
    cu = {}
    for tgt in ("sm_80", "sm_90"):
        dst = f"{tmp}/{stem}_{tgt}.cu"
        rc, text = run([args.tilec, str(path), *defines, f"--target={tgt}", "-o", dst])
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
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--derive-defines", action="store_true")
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
        if args.verbose and r["defines"]:
            print("    " + " ".join(r["defines"]))
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
