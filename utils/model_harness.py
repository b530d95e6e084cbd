#!/usr/bin/env python3
"""Compile a model twice (f32 and autocast) in one module, JIT-run both, compare.

The model file holds `func.func @forward(%arg0: tensor<...xf32>) -> tensor<...xf32>`
(linalg on tensors or tosa). The harness writes one module with
  @forward_f32  the model as it is,
  @forward_amp  the same body decorated with `amp.autocast = #amp.autocast<...>`,
  @main         a deterministic input (sin of the index sum), `--repeat` timed
                calls of each (rtclock, wall seconds), the relative L2 error
                ||y_amp - y_f32|| / ||y_f32|| in f64 and the count of
                non-finite autocast logits,
runs `amp-opt --amp-randomize-weights --amp-cpu-pipeline` on it (with
`--target cuda`: `--amp-cuda-pipeline`, sm_90, both versions on the GPU) and
JIT-runs it with `amp-runner`. It prints, one per line:
  model: NAME
  autocast: device_type=D dtype=T mode=M
  target: cpu|cuda
  f32_ms, amp_ms (per call), speedup (f32_ms / amp_ms), rel_l2, nonfinite
and with `--max-rel-l2 X` a PASS/FAIL line, exiting 1 when rel_l2 > X or any
logit is NaN/inf. `--stats` prints the amp pass statistics first; `--policy`
adds cast-policy op lists to amp-autocast.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_module(src, device, dtype, repeat):
    src = re.sub(r'module attributes \{[^}]*\} \{', 'module {', src, count=1)
    m = re.search(r'func\.func @forward\((%\w+): (tensor<[^>]*>)\) -> (tensor<[^>]*>) \{', src)
    if not m:
        sys.exit('model_harness: no "func.func @forward(%x: tensor<..>) -> tensor<..>" in the model')
    arg, in_ty, out_ty = m.group(1), m.group(2), m.group(3)
    start = m.start()
    # The function ends at the first line that closes it at its own indentation.
    end = src.index('\n', src.index('return', start))
    end = src.index('}', end) + 1
    fn = src[start:end]
    dtype_kw = f', dtype = {dtype}' if dtype else ''
    f32 = fn.replace('@forward(', '@forward_f32(', 1)
    sig = m.group(0)
    amp_sig = sig.replace('@forward(', '@forward_amp(', 1)[:-1] + (
        f'attributes {{amp.autocast = #amp.autocast<device_type = {device}{dtype_kw}>}} {{')
    amp = amp_sig + fn[len(sig):]
    in_shape = [int(d) for d in in_ty[len('tensor<'):-1].split('x')[:-1]]
    out_shape = [int(d) for d in out_ty[len('tensor<'):-1].split('x')[:-1]]
    rank = len(in_shape)
    dims = ', '.join(f'd{i}' for i in range(rank))
    idx = '\n'.join(f'      %i{i} = linalg.index {i} : index' for i in range(rank))
    acc = '%c0i'
    sums = []
    for i in range(rank):
        sums.append(f'      %s{i} = arith.addi {acc}, %i{i} : index')
        acc = f'%s{i}'
    sums = '\n'.join(sums)
    n_out = 1
    for d in out_shape:
        n_out *= d
    flat = f'tensor<{n_out}xf32>'
    out_rank = len(out_shape)
    reassoc = '[' + ', '.join(str(i) for i in range(out_rank)) + ']'
    main = f'''
  func.func private @rtclock() -> f64
  func.func @main() {{
    %c0i = arith.constant 0 : index
    %e = tensor.empty() : {in_ty}
    %x = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], iterator_types = [{', '.join(['"parallel"'] * rank)}]}} outs(%e : {in_ty}) {{
    ^bb0(%o: f32):
{idx}
{sums}
      %ii = arith.index_cast {acc} : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %k = arith.constant 0.37 : f32
      %m = arith.mulf %f, %k : f32
      %r = math.sin %m : f32
      linalg.yield %r : f32
    }} -> {in_ty}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %reps = arith.constant {repeat} : index
    %y32 = call @forward_f32(%x) : ({in_ty}) -> {out_ty}
    %ya = call @forward_amp(%x) : ({in_ty}) -> {out_ty}
    %t0 = call @rtclock() : () -> f64
    scf.for %i = %c0 to %reps step %c1 {{
      %y = func.call @forward_f32(%x) : ({in_ty}) -> {out_ty}
    }}
    %t1 = call @rtclock() : () -> f64
    scf.for %i = %c0 to %reps step %c1 {{
      %y = func.call @forward_amp(%x) : ({in_ty}) -> {out_ty}
    }}
    %t2 = call @rtclock() : () -> f64
    %d32 = arith.subf %t1, %t0 : f64
    %da = arith.subf %t2, %t1 : f64
    %flat32 = tensor.collapse_shape %y32 [{reassoc}] : {out_ty} into {flat}
    %flata = tensor.collapse_shape %ya [{reassoc}] : {out_ty} into {flat}
    %n = arith.constant {n_out} : index
    %z = arith.constant 0.0 : f64
    %zi = arith.constant 0 : i64
    %res:3 = scf.for %i = %c0 to %n step %c1 iter_args(%num = %z, %den = %z, %bad = %zi) -> (f64, f64, i64) {{
      %a = tensor.extract %flat32[%i] : {flat}
      %b = tensor.extract %flata[%i] : {flat}
      %a64 = arith.extf %a : f32 to f64
      %b64 = arith.extf %b : f32 to f64
      %df = arith.subf %b64, %a64 : f64
      %dd = arith.mulf %df, %df : f64
      %aa = arith.mulf %a64, %a64 : f64
      %num2 = arith.addf %num, %dd : f64
      %den2 = arith.addf %den, %aa : f64
      %absb = math.absf %b64 : f64
      %inf = arith.constant 0x7FF0000000000000 : f64
      %fin = arith.cmpf olt, %absb, %inf : f64
      %one = arith.constant 1 : i64
      %badp = arith.addi %bad, %one : i64
      %bad2 = arith.select %fin, %bad, %badp : i64
      scf.yield %num2, %den2, %bad2 : f64, f64, i64
    }}
    %q = arith.divf %res#0, %res#1 : f64
    %rel = math.sqrt %q : f64
    vector.print %d32 : f64
    vector.print %da : f64
    vector.print %rel : f64
    vector.print %res#2 : i64
    return
  }}
'''
    head = src[:start]
    tail = src[end:]
    body = head + f32 + '\n' + amp + tail
    body = body[:body.rindex('}')] + main + '}\n'
    return body


def tool(name, build):
    return os.path.join(build, 'bin', name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('model')
    ap.add_argument('--device', default='cpu', choices=['cpu', 'cuda'], help='autocast device_type (its default dtype: cpu bf16, cuda f16)')
    ap.add_argument('--dtype', default=None, choices=['f16', 'bf16'], help='autocast dtype (default: the device default)')
    ap.add_argument('--mode', default='graph', choices=['graph', 'eager'])
    ap.add_argument('--target', default='cpu', choices=['cpu', 'cuda'],
                    help='where both versions run: cpu (amp-cpu-pipeline, default) or cuda '
                         '(amp-cuda-pipeline for sm_90; amp-runner needs a CUDA device)')
    ap.add_argument('--repeat', type=int, default=3, help='timed calls of each version')
    ap.add_argument('--seed', type=int, default=0, help='amp-randomize-weights seed')
    ap.add_argument('--max-rel-l2', type=float, default=None, help='fail above this relative L2 error')
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--stats', action='store_true', help='print the amp pass statistics (cast counts)')
    ap.add_argument('--keep', default=None, help='write the generated module here')
    ap.add_argument('--policy', default='',
                    help='extra amp-autocast options that change the cast policy, e.g. '
                         '"fp32-ops=linalg.depthwise_conv_2d_nchw_chw" (to find the ops '
                         'that cost accuracy)')
    a = ap.parse_args()
    # Only the cast-policy lists: mode has its own flag, and keep-regions
    # would leave the regions to the pipeline's own amp-autocast, which
    # would apply the default policy over this one.
    policy_option = re.compile(
        r'^(remove-)?(lower|fp32|promote|infer|clear|keep)-ops=[A-Za-z0-9_.,]+$')
    for item in a.policy.split():
        if not policy_option.match(item):
            ap.error(f"--policy takes amp-autocast's op lists only "
                     f"((remove-)lower|fp32|promote|infer|clear|keep-ops=dialect.op,...), "
                     f"got '{item}' (use --mode for the mode)")

    if a.repeat < 1:
        ap.error(f'--repeat must be at least 1, got {a.repeat}')
    for name in ('amp-opt', 'amp-runner'):
        if not os.access(tool(name, a.build), os.X_OK):
            ap.error(f"no {name} in '{a.build}/bin' (--build: the project's build directory)")
    try:
        src = open(a.model).read()
    except OSError as error:
        ap.error(f"cannot read the model '{a.model}': {error.strerror}")
    module = build_module(src, a.device, a.dtype, a.repeat)
    if a.keep:
        open(a.keep, 'w').write(module)
    opt = [tool('amp-opt', a.build), '-', f'--amp-randomize-weights=seed={a.seed}']
    if a.policy:
        # The pipeline's own amp-autocast then finds no autocast scope left.
        opt.append(f'--amp-autocast=mode={a.mode} {a.policy}')
    opt.append(f'--amp-{a.target}-pipeline=mode={a.mode}')
    if a.stats:
        opt.append('-mlir-pass-statistics')
    p = subprocess.run(opt, input=module, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(f'model_harness: amp-opt failed ({p.returncode})')
    if a.stats:
        # MLIR's own statistics report is empty here (amp passes report in
        # their own block); drop its banner.
        sys.stdout.write(re.sub(r'=+-+=+\n\s+\.\.\. Pass statistics report \.\.\.\n=+-+=+\n\n*(?==+-+=+\n)',
                                '', p.stderr))
    r = subprocess.run([tool('amp-runner', a.build), '-e', 'main', '--entry-point-result=void', '-O3'],
                       input=p.stdout, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        sys.exit(f'model_harness: amp-runner failed ({r.returncode})')
    vals = r.stdout.split()
    d32, da, rel, bad = float(vals[0]), float(vals[1]), float(vals[2]), int(vals[3])
    name = os.path.splitext(os.path.basename(a.model))[0]
    dtype = a.dtype or ('bf16' if a.device == 'cpu' else 'f16')
    print(f'model: {name}')
    print(f'autocast: device_type={a.device} dtype={dtype} mode={a.mode}')
    print(f'target: {a.target}')
    print(f'f32_ms: {1e3 * d32 / a.repeat:.3f}')
    print(f'amp_ms: {1e3 * da / a.repeat:.3f}')
    # A tiny model's calls can take less than the clock's resolution.
    print(f'speedup: {d32 / da:.2f}' if da > 0 else 'speedup: n/a')
    print(f'rel_l2: {rel:.3e}')
    print(f'nonfinite: {bad}')
    if a.max_rel_l2 is not None:
        ok = bad == 0 and rel == rel and rel <= a.max_rel_l2
        print(('PASS' if ok else 'FAIL') + f': rel_l2 {rel:.3e} <= {a.max_rel_l2:g}, no NaN/inf')
        sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
