"""Command line: export a PyTorch model to MLIR for amp-opt.

    python -m amp_mlir.torch torchvision:resnet18 --input 1x3x224x224 \\
        --autocast cpu,bfloat16 -o resnet18.mlir
    python -m amp_mlir.torch my.package.models:make_net --input 8x32 \\
        --input 8:int64 -o net.mlir
    amp-opt resnet18.mlir --amp-cpu-pipeline

MODEL is ``torchvision:NAME`` (``torchvision.models.NAME(weights=None)``,
seeded random weights) or ``module.path:factory`` (a function taking no
argument that returns a ``torch.nn.Module``). Each ``--input`` is one
argument of ``forward``: a shape ``AxBxC`` and optionally ``:dtype`` (torch's
name, default float32); inputs are seeded random (token ids in 0..15).

Layer: the PyTorch front end's command line, above :mod:`._export`.
"""

import argparse
import importlib
import os
import sys

import torch

from ._export import TorchImportError, import_module, parse_autocast


def _model(spec):
    if ":" not in spec:
        raise ValueError(f"MODEL must be 'torchvision:NAME' or 'module.path:factory', "
                         f"got {spec!r}")
    module_name, factory = spec.rsplit(":", 1)
    if module_name == "torchvision":
        import torchvision
        fn = getattr(torchvision.models, factory, None)
        if fn is None or factory not in torchvision.models.list_models(
                module=torchvision.models):
            raise ValueError(f"torchvision.models has no model {factory!r}")
        return fn(weights=None)
    fn = getattr(importlib.import_module(module_name), factory, None)
    if fn is None:
        raise ValueError(f"module {module_name!r} has no attribute {factory!r}")
    try:
        model = fn()
    except Exception as e:  # noqa: BLE001 - the user's code: any error
        raise ValueError(f"MODEL {spec}: calling {factory}() failed "
                         f"({type(e).__name__}: {_first_line(e)}); the factory must "
                         "take no argument and return a torch.nn.Module") from None
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"{spec} returned {type(model).__name__}, not a torch.nn.Module")
    return model


def _input(text):
    shape_text, _, dtype_name = text.partition(":")
    try:
        shape = [int(d) for d in shape_text.split("x")] if shape_text else []
    except ValueError:
        raise ValueError(f"--input {text!r}: the shape must be like 1x3x224x224") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"--input {text!r}: sizes must not be negative")
    dtype = getattr(torch, dtype_name or "float32", None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"--input {text!r}: unknown dtype {dtype_name!r}")
    if dtype.is_complex or dtype.itemsize == 1 and dtype.is_floating_point:
        raise ValueError(f"--input {text!r}: dtype {dtype_name} is not supported "
                         "(floating-point of 16 bits or more, integer or bool)")
    if dtype == torch.bool:
        return torch.randint(0, 2, shape).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.randint(0, 16, shape, dtype=dtype)


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else "no message"


def _check_output(path):
    """Fails before the (slow) export when ``-o`` cannot be written."""
    if path == "-":
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"-o {path}: directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"-o {path}: is a directory")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m amp_mlir.torch",
        description="Export a PyTorch model (torch.export + torch-mlir) as linalg on "
                    "tensors for amp-opt, with the amp.autocast decorator on @forward.")
    parser.add_argument("model", help="torchvision:NAME or module.path:factory")
    parser.add_argument("--input", action="append", required=True,
                        help="shape[:dtype] of one forward argument, e.g. 1x3x224x224")
    parser.add_argument("--autocast", default=None,
                        help="device,dtype: cpu,bfloat16 | cpu,float16 | cuda,float16 | "
                             "cuda,bfloat16 (default: none)")
    parser.add_argument("--weights", choices=("args", "inline"), default="args",
                        help="parameters as @forward's first arguments (default) or "
                             "inlined as dense constants")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = parser.parse_args(argv)
    try:
        autocast = args.autocast
        parse_autocast(autocast)
        _check_output(args.output)
        torch.manual_seed(0)
        model = _model(args.model)
        inputs = tuple(_input(t) for t in args.input)
        try:
            text = import_module(model, inputs, autocast=autocast, weights=args.weights)
        except (TorchImportError, ValueError):
            raise
        except Exception as e:  # noqa: BLE001 - torch.export's errors: any kind
            # Most often the --input shapes do not fit the model's forward.
            shapes = " ".join(f"--input {t}" for t in args.input)
            raise ValueError(f"exporting {args.model} with {shapes} failed "
                             f"({type(e).__name__}: {_first_line(e)}); do the "
                             "inputs match forward's arguments?") from None
        if args.output == "-":
            sys.stdout.write(text)
        else:
            with open(args.output, "w") as f:
                f.write(text)
    except (ValueError, TorchImportError, ImportError, OSError) as e:
        print(f"error: {_first_line(e)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
