#!/usr/bin/env python3
"""Times amp-opt --amp-autocast against amp-opt --canonicalize on synthetic
modules of N ops (stacked transformer-like blocks, gen_transformer_blocks.py),
N = 1e3 .. 1e6, and prints per N: the wall time of both whole commands (parse,
pass, verify, print), their ratio, the time of the pass alone (-mlir-timing),
and the growth of the autocast time per 10x ops. Each time is the best of
--repeat runs measured in this one process, the two commands alternating.

The amp-opt timed is a release build without assertions (build-bench/,
configured with -DAMP_ENABLE_ASSERTIONS=OFF and built on first use, a few
minutes), as Debian's libMLIR.so that runs canonicalize is: the test build's
assertions check every interface cast of the pass against the dialects'
promised interfaces, about a tenth of its time. --amp-opt times another one.

Wall time on a shared machine varies by 10-30% from run to run, for both
commands alike. --instructions adds a deterministic measure: the
instructions each whole command executes, counted by valgrind's callgrind
(apt install valgrind), up to 1e5 ops (about a minute per command there),
with their ratio and growth per 10x ops.

Usage: bench/autocast_scaling.py [--max 1e6] [--repeat 5] [--amp-opt PATH]
                                 [--instructions]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = ROOT / "bench/gen_transformer_blocks.py"


def run(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed, proc.stderr


def build_bench_amp_opt():
    """Builds amp-opt without assertions in build-bench/; returns its path."""
    build = ROOT / "build-bench"
    env = dict(os.environ, AMP_BUILD_DIR=str(build),
               AMP_CMAKE_ARGS="-DAMP_ENABLE_ASSERTIONS=OFF")
    print(f"building amp-opt without assertions in {build} ...", flush=True)
    proc = subprocess.run(["bash", str(ROOT / "scripts/build.sh"), "amp-opt"],
                          env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"building the benchmark amp-opt failed:\n"
                 f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return str(build / "bin/amp-opt")


def instructions(cmd, tmp):
    """Instructions `cmd` executes (valgrind --tool=callgrind)."""
    # --trace-children: an amp-opt that is a wrapper script is counted with
    # the processes it starts (one "Collected" line each).
    out = os.path.join(tmp, "callgrind.out.%p")
    _, stderr = run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                     f"--callgrind-out-file={out}"] + cmd)
    counts = [int(c) for c in re.findall(r"Collected : (\d+)", stderr)]
    if not counts:
        sys.exit(f"no instruction count in valgrind's output:\n{stderr[-2000:]}")
    return sum(counts)


def pass_time(stderr, name):
    m = re.search(r"^\s*([0-9.]+) \([ 0-9.]+%\)\s+" + name + r"\s*$", stderr, re.M)
    return float(m.group(1)) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max", type=float, default=1e6)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--amp-opt", help="amp-opt to time (default: the "
                    "release build in build-bench/, built when missing)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions of both commands with "
                    "valgrind (sizes up to 1e5)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.amp_opt is not None and not (os.path.isfile(args.amp_opt)
                                         and os.access(args.amp_opt, os.X_OK)):
        ap.error(f"--amp-opt {args.amp_opt!r} is not an executable file")
    if args.instructions and not shutil.which("valgrind"):
        sys.exit("--instructions needs valgrind (apt install valgrind)")
    if args.amp_opt is None:
        args.amp_opt = build_bench_amp_opt()
    print(f"amp-opt: {args.amp_opt}")

    sizes = [n for n in (1e3, 1e4, 1e5, 1e6) if n <= args.max]
    print(f"{'ops':>9} {'canon s':>9} {'autocast s':>10} {'ratio':>6} "
          f"{'canon pass':>10} {'amp pass':>9} {'pass ratio':>10} {'growth/10x':>10}")
    previous = None
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"blocks_{int(n)}.mlir")
            subprocess.run([sys.executable, str(GEN), str(int(n)), path], check=True)
            ops = sum(1 for line in open(path) if " = " in line)
            repeat = args.repeat if n < 1e6 else min(args.repeat, 3)
            # The two commands alternate, so that a change in the machine's
            # load during the measurement affects both alike.
            flags = (("--canonicalize", "Canonicalizer"),
                     ("--amp-autocast", "AmpAutocast"))
            runs = {flag: [] for flag, _ in flags}
            for _ in range(repeat):
                for flag, _ in flags:
                    runs[flag].append(run([args.amp_opt, path, flag, "-o",
                                           os.devnull, "-mlir-timing"]))
            best = {flag: (min(r[0] for r in runs[flag]),
                           min(pass_time(r[1], pname) for r in runs[flag]))
                    for flag, pname in flags}
            canon, amp = best["--canonicalize"], best["--amp-autocast"]
            growth = f"{amp[0] / previous:.1f}x" if previous else "-"
            previous = amp[0]
            print(f"{ops:>9} {canon[0]:>9.3f} {amp[0]:>10.3f} {amp[0] / canon[0]:>6.2f} "
                  f"{canon[1]:>10.3f} {amp[1]:>9.3f} {amp[1] / canon[1]:>10.2f} {growth:>10}",
                  flush=True)
            if args.instructions and n <= 1e5:
                counts.append((ops, *(instructions([args.amp_opt, path, flag, "-o",
                                                    os.devnull], tmp)
                                      for flag in ("--canonicalize", "--amp-autocast"))))
    if counts:
        print(f"\ninstructions of the whole command (valgrind), millions:")
        print(f"{'ops':>9} {'canon':>9} {'autocast':>10} {'ratio':>6} {'growth/10x':>10}")
        for i, (ops, canon, amp) in enumerate(counts):
            growth = f"{amp / counts[i - 1][2]:.1f}x" if i else "-"
            print(f"{ops:>9} {canon / 1e6:>9.1f} {amp / 1e6:>10.1f} {amp / canon:>6.3f} "
                  f"{growth:>10}")
    print("targets: ratio <= 1.0, growth <= 11x per 10x ops")


if __name__ == "__main__":
    main()
