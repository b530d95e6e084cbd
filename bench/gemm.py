#!/usr/bin/env python3
"""GEMM throughput: amp-cpu-pipeline f32, amp-cpu-pipeline cpu/bf16 autocast
(bf16 inputs, f32 accumulation), and numpy (OpenBLAS) f32, in GFLOP/s
(2*N^3 flops per call), all measured in this run on this machine.

Usage: python3 bench/gemm.py [--sizes 1024 2048] [--repeat 5]
Prints one line per size and ratios: ours f32 / OpenBLAS (1 thread and all
threads; ours runs the cache tiles on all cores through OpenMP), ours f32 /
ours f32 without packing B (pack-rhs=0), ours bf16 / ours f32. The CPU
features LLVM sees (avx2, avx512bf16, amx-bf16) are printed first.
"""
import argparse
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:  # Debian's numpy lives with /usr/bin/python3.
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    sys.exit('bench/gemm.py needs numpy (apt install python3-numpy libopenblas0-pthread)')

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module(n, repeat, autocast):
    attr = ' attributes {amp.autocast = #amp.autocast<device_type = cpu>}' if autocast else ''
    t = f'tensor<{n}x{n}xf32>'
    return f'''
func.func @mm(%a: {t}, %b: {t}) -> {t}{attr} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {t}
  %c = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
  %r = linalg.matmul ins(%a, %b : {t}, {t}) outs(%c : {t}) -> {t}
  return %r : {t}
}}
func.func private @rtclock() -> f64
func.func @main() {{
  %a = arith.constant dense<1.0> : {t}
  %b = arith.constant dense<0.5> : {t}
  %w = call @mm(%a, %b) : ({t}, {t}) -> {t}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %reps = arith.constant {repeat} : index
  %t0 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %reps step %c1 {{
    %r = func.call @mm(%a, %b) : ({t}, {t}) -> {t}
  }}
  %t1 = call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  vector.print %dt : f64
  %v = tensor.extract %w[%c0, %c0] : {t}
  vector.print %v : f32
  return
}}
'''


def ours(n, repeat, autocast, build, options=''):
    opt = subprocess.run([os.path.join(build, 'bin', 'amp-opt'), '-',
                          f'--amp-cpu-pipeline={options}'],
                         input=module(n, repeat, autocast), capture_output=True, text=True, check=True)
    run = subprocess.run([os.path.join(build, 'bin', 'amp-runner'), '-e', 'main',
                          '--entry-point-result=void', '-O3'],
                         input=opt.stdout, capture_output=True, text=True, check=True)
    dt, value = run.stdout.split()[:2]
    if float(value) != 0.5 * n:
        sys.exit(f'gemm {n}: wrong result {value}, expected {0.5 * n}')
    return 2.0 * n ** 3 * repeat / float(dt) / 1e9


def numpy_gflops(n, repeat, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    code = ('import numpy as np, time, sys\n'
            f'n={n}; a=np.ones((n,n),np.float32); b=np.full((n,n),0.5,np.float32); a@b\n'
            f't=time.perf_counter()\nfor _ in range({repeat}): a@b\n'
            'print(2.0*n**3*%d/(time.perf_counter()-t)/1e9)' % repeat)
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--sizes', type=int, nargs='+', default=[1024, 2048])
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    a = ap.parse_args()
    flags = open('/proc/cpuinfo').read().split('flags')[1].split('\n')[0].split()
    seen = [f for f in ('avx2', 'fma', 'avx512f', 'avx512_bf16', 'amx_tile', 'amx_bf16') if f in flags]
    print(f'cpu features: {" ".join(seen)}; cores: {os.cpu_count()}')
    print(f'{"N":>6} {"ours f32":>10} {"no pack":>10} {"ours bf16":>10} {"blas 1t":>10} '
          f'{"blas all":>10}   {"f32/blas1t":>10} {"f32/blas":>9} {"pack gain":>9} '
          f'{"bf16/f32":>9}   (GFLOP/s)')
    for n in a.sizes:
        reps = max(1, a.repeat * (1024 // n) ** 3) if n < 1024 else a.repeat
        f32 = ours(n, reps, False, a.build)
        nopack = ours(n, reps, False, a.build, 'pack-rhs=0')
        bf16 = ours(n, reps, True, a.build)
        b1 = numpy_gflops(n, reps, 1)
        ball = numpy_gflops(n, reps, os.cpu_count())
        print(f'{n:>6} {f32:>10.1f} {nopack:>10.1f} {bf16:>10.1f} {b1:>10.1f} {ball:>10.1f}   '
              f'{f32 / b1:>10.2f} {f32 / ball:>9.2f} {f32 / nopack:>9.2f} {bf16 / f32:>9.2f}')


if __name__ == '__main__':
    main()
