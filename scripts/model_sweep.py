#!/usr/bin/env python3
"""Model sweep: every torchvision classification model through amp-mlir.

Each model of ``torchvision.models.list_models(module=torchvision.models)``
with at most ``--max-params`` parameters (default 30M; torchvision's own
count, seeded random weights, eval mode) is run in a child process with a
time limit, at batch 1 on a 3 x SIZE x SIZE input (SIZE = ``--size``,
default 64, or 224 where PyTorch's own forward refuses the small input):

1. exported: ``torch.export`` + torch-mlir (``amp_mlir.torch.export_module``),
   f32 and with autocast(cpu, bf16) over the whole of ``forward``;
2. compiled: amp-cpu-pipeline (graph mode) and the JIT
   (``amp_mlir.torch._compile.compile_text``);
3. ran: the compiled model on the input;

and the relative L2 error ``||y - y_ref|| / ||y_ref||`` of the logits
against PyTorch f32 on the same input, next to PyTorch's own
``torch.autocast("cpu", torch.bfloat16)`` error. A failure records the
stage and the first line of its message (an amp_mlir.torch.TorchImportError
names the op and the user's source line); a child that dies from a signal is
a crash, one past the limit a timeout.

Usage (the build's environment, scripts/setup.sh's):

    build/venv/bin/python scripts/model_sweep.py [--output docs/ModelSweep.md]
        [--models resnet18,squeezenet1_1] [--timeout 600] [--size 64]

Prints one line per model as it finishes and, at the end, the markdown
table (written to --output too). Exits 1 when a model crashed or a compiled
module failed the verifier; other failures are results.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))


def count_params(name):
    """torchvision's parameter count without initialising the weights."""
    import torch
    import torchvision
    try:
        with torch.device("meta"):
            model = torchvision.models.get_model(name, weights=None)
    except Exception:  # builders that compute on tensors (regnet) need data
        inits = {k: getattr(torch.nn.init, k) for k in dir(torch.nn.init)
                 if k.endswith("_") and not k.startswith("_")}
        try:
            for k in inits:
                setattr(torch.nn.init, k, lambda t, *a, **kw: t)
            model = torchvision.models.get_model(name, weights=None)
        finally:
            for k, f in inits.items():
                setattr(torch.nn.init, k, f)
    return sum(p.numel() for p in model.parameters())


def rel_l2(y, ref):
    import torch
    y, ref = y.double(), ref.double()
    return float(torch.linalg.vector_norm(y - ref) / torch.linalg.vector_norm(ref))


def first_line(error):
    text = str(error).strip().splitlines()
    line = text[0] if text else ""
    return f"{type(error).__name__}: {line}"[:300]


_T0 = time.perf_counter()


def progress(stage):
    """The child's last words before a timeout: the stage it reached and when
    (stderr; the parent reads the last such line when it kills the child)."""
    print(f"progress: {stage} at {time.perf_counter() - _T0:.0f} s",
          file=sys.stderr, flush=True)


def run_one(name, size):
    """The child: one model, f32 and bf16. Prints one JSON object."""
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    import torchvision
    from amp_mlir import MLIRError
    from amp_mlir.compiler import pipeline_for
    from amp_mlir.torch import export_module
    from amp_mlir.torch._compile import CompiledModule, compile_text

    torch.manual_seed(0)
    result = {"model": name}
    model = torchvision.models.get_model(name, weights=None).eval()
    result["params"] = sum(p.numel() for p in model.parameters())
    x = None
    for s in (size, 224):
        try:
            candidate = torch.randn(1, 3, s, s)
            with torch.no_grad():
                ref = model(candidate)
            x = candidate
            break
        except Exception as e:  # too small for the model's downsampling
            result["small_input_error"] = first_line(e)
    if x is None:
        result["error"] = "PyTorch's own forward failed: " + result["small_input_error"]
        print(json.dumps(result))
        return
    result["size"] = x.shape[-1]
    progress("PyTorch reference done")
    with torch.no_grad(), torch.autocast("cpu", torch.bfloat16):
        result["torch_bf16"] = rel_l2(model(x).float(), ref)

    for config, autocast in (("f32", None), ("bf16", ("cpu", "bfloat16"))):
        entry = result[config] = {}
        start = time.perf_counter()
        progress(f"{config}: exporting")
        try:
            exported = export_module(model, (x,), autocast=autocast)
        except Exception as e:
            entry["stage"], entry["error"] = "export", first_line(e)
            continue
        entry["exported"] = True
        progress(f"{config}: exported; compiling")
        try:
            pipeline = pipeline_for("cpu", autocast=True, mode="graph")
            executable = compile_text(exported.text, pipeline, opt_level=1)
            compiled = CompiledModule(exported, executable, pipeline, "cpu",
                                      time.perf_counter() - start)
        except Exception as e:
            entry["stage"], entry["error"] = "compile", first_line(e)
            if isinstance(e, MLIRError) or isinstance(e.__cause__, MLIRError):
                entry["verifier"] = "verif" in str(e).lower()
            continue
        entry["compiled"] = True
        entry["compile_s"] = round(time.perf_counter() - start, 1)
        progress(f"{config}: compiled; running")
        try:
            with torch.no_grad():
                y = compiled(x)
        except Exception as e:
            entry["stage"], entry["error"] = "run", first_line(e)
            continue
        entry["ran"] = True
        entry["rel_l2"] = rel_l2(y.float(), ref)
        entry["finite"] = bool(torch.isfinite(y).all())
        progress(f"{config}: ran")
    print(json.dumps(result))


def cell(entry):
    if not entry:
        return "—"
    if entry.get("ran"):
        mark = "" if entry.get("finite", True) else " (non-finite)"
        return f"{entry['rel_l2']:.1e}{mark}"
    return f"{entry.get('stage', '?')} failed"


def table(results):
    lines = ["| model | params (M) | input | f32: exported / compiled / ran | f32 rel L2 "
             "| bf16: exported / compiled / ran | bf16 rel L2 | torch.autocast bf16 rel L2 |",
             "|---|---|---|---|---|---|---|---|"]
    yes = lambda e, k: "yes" if e.get(k) else "no"
    for r in results:
        params = f"{r['params'] / 1e6:.1f}" if "params" in r else "?"
        if r.get("skipped") or r.get("status") in ("timeout", "crash") or "error" in r:
            why = r.get("skipped") or r.get("status") or r.get("error")
            lines.append(f"| {r['model']} | {params} | — | {why} | | | | |")
            continue
        f32, bf16 = r.get("f32", {}), r.get("bf16", {})
        lines.append(
            f"| {r['model']} | {params} | 1x3x{r['size']}x{r['size']} | "
            f"{yes(f32, 'exported')} / {yes(f32, 'compiled')} / {yes(f32, 'ran')} | {cell(f32)} | "
            f"{yes(bf16, 'exported')} / {yes(bf16, 'compiled')} / {yes(bf16, 'ran')} | {cell(bf16)} | "
            f"{r.get('torch_bf16', float('nan')):.1e} |")
    errors = []
    for r in results:
        for config in ("f32", "bf16"):
            e = r.get(config, {})
            if e.get("error"):
                errors.append(f"- {r['model']} ({config}, {e['stage']}): {e['error']}")
        if r.get("status") in ("timeout", "crash"):
            errors.append(f"- {r['model']}: {r.get('detail', r['status'])}")
    return "\n".join(lines) + ("\n\nFailures:\n\n" + "\n".join(errors) if errors else "") + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", help="comma-separated names (default: all)")
    parser.add_argument("--max-params", type=float, default=30e6)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per model")
    parser.add_argument("--output", help="also write the markdown table here")
    parser.add_argument("--json", help="append each model's JSON result to this file")
    parser.add_argument("--from-json", help="only print the table of a --json file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(args.one, args.size)
        return 0
    if args.from_json:
        results = [json.loads(l) for l in open(args.from_json) if l.strip()]
        text = table(results)
        print(text)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        return 0

    import torchvision
    names = (args.models.split(",") if args.models
             else torchvision.models.list_models(module=torchvision.models))
    # Smallest first: on a slow machine the most models finish.
    sized = sorted((count_params(n), n) for n in names)
    results = []
    for params, name in sized:
        if params > args.max_params:
            r = {"model": name, "params": params,
                 "skipped": f"skipped (over {args.max_params / 1e6:.0f}M parameters)"}
            results.append(r)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(r) + "\n")
            continue
        start = time.perf_counter()
        try:
            child = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--one", name,
                 "--size", str(args.size)], capture_output=True, text=True,
                timeout=args.timeout)
            lines = [l for l in child.stdout.splitlines() if l.startswith("{")]
            if child.returncode < 0 or not lines:
                tail = (child.stderr.strip().splitlines() or [""])[-1][:300]
                r = {"model": name, "params": params, "status": "crash",
                     "detail": f"exit {child.returncode}: {tail}"}
            else:
                r = json.loads(lines[-1])
        except subprocess.TimeoutExpired as e:
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            reached = [l[len("progress: "):] for l in err.splitlines()
                       if l.startswith("progress: ")]
            r = {"model": name, "params": params, "status": "timeout",
                 "detail": f"over the {args.timeout} s limit"
                 + (f" (last stage reached: {reached[-1]})" if reached else "")}
        r["seconds"] = round(time.perf_counter() - start, 1)
        results.append(r)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")
        print(f"{name}: {json.dumps(r)}", flush=True)

    text = table(results)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    bad = [r for r in results if r.get("status") == "crash"
           or any(r.get(c, {}).get("verifier") for c in ("f32", "bf16"))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
