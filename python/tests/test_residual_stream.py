"""Issue 29, item 3: graph mode keeps the residual stream in f32.

A stack of 12 pre-norm transformer blocks (bench/gen_transformer_blocks.py:
layer norm, attention, MLP, residual adds; autocast(cuda) -> f16) runs
through amp-cpu-pipeline in f32, in graph mode and in eager mode. PyTorch's
type promotion keeps `x + attn(x)` f32 when `x` is f32; graph mode used to
paint that add f16 and round the residual stream in every block (relative
L2 error 9.5e-4, 1.44x eager's 6.6e-4; now both 6.6e-4). The rule (docs/Autocast.md, "Graph mode"): an f32 value
from outside the region keeps the infer ops that read it, and the ops they
feed, in f32. Requirement: graph mode's relative L2 error vs f32 at most
1.2x eager mode's.
"""
import importlib.util
import os

import numpy as np

from amp_mlir.compiler import compile, pipeline_for

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BLOCKS = 12


def _stack_source():
    spec = importlib.util.spec_from_file_location(
        "gen_transformer_blocks",
        os.path.join(ROOT, "bench", "gen_transformer_blocks.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    T, D, F = gen.T, gen.D, gen.F
    text = [gen.HEADER]
    x = "x0"
    for i in range(BLOCKS):
        text.append(gen.BLOCK.format(b=f"b{i}_", x=x, T=T, D=D, F=F))
        x = f"b{i}_out"
    text.append(f"  return %{x} : tensor<{T}x{D}xf32>\n}}\n")
    return "".join(text), (T, D, F)


def _rel_l2(a, ref):
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


def test_graph_mode_residual_stream_error_within_1_2x_eager():
    source, (T, D, F) = _stack_source()
    rng = np.random.default_rng(0)
    # A residual stream larger than each block's update (std 8 against ~1),
    # as in a trained transformer: rounding the stream to f16 is then what
    # dominates graph mode's error, block after block.
    x = (8.0 * rng.standard_normal((T, D))).astype(np.float32)
    weights = [(rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
               for shape in [(D, D)] * 4 + [(D, F), (F, D)]]
    results = {}
    for name, pipeline in [("f32", pipeline_for("cpu", autocast=False)),
                           ("graph", pipeline_for("cpu", mode="graph")),
                           ("eager", pipeline_for("cpu", mode="eager"))]:
        results[name] = compile(source, pipeline).forward(x, *weights)
    ref = results["f32"]
    assert np.all(np.isfinite(ref))
    graph = _rel_l2(results["graph"], ref)
    eager = _rel_l2(results["eager"], ref)
    print(f"relative L2 vs f32: graph {graph:.3e}, eager {eager:.3e}, "
          f"ratio {graph / eager:.3f}")
    # Autocast did round something (the test would pass trivially otherwise).
    assert eager > 1e-5
    assert graph <= 1.2 * eager
