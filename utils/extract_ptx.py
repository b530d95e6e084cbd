#!/usr/bin/env python3
"""Extracts the PTX of every `gpu.binary` in MLIR text (amp-cuda-pipeline
with format=isa) into files, for ptxas and FileCheck.

Usage: extract_ptx.py IN.mlir OUT_DIR [--ptxas PTXAS --arch sm_90]
  -> OUT_DIR/<binary name>.ptx, one per gpu.binary; prints the paths. With
  --ptxas, assembles each file for --arch and fails on the first error.
  Exit 1 when the input holds no PTX.
"""
import argparse
import subprocess
import os
import re
import sys


def unescape(text):
    """MLIR string-literal escapes: \\XX (two hex digits), \\\\, \\", \\n, \\t."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "\\\"":
                out.append(nxt)
                i += 2
                continue
            if nxt in "nt":
                out.append("\n" if nxt == "n" else "\t")
                i += 2
                continue
            if re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 1:i + 3]):
                out.append(chr(int(text[i + 1:i + 3], 16)))
                i += 3
                continue
        out.append(c)
        i += 1
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("src")
    ap.add_argument("out_dir")
    ap.add_argument("--ptxas")
    ap.add_argument("--arch", default="sm_90")
    args = ap.parse_args()
    src, out_dir = args.src, args.out_dir
    text = open(src).read()
    os.makedirs(out_dir, exist_ok=True)
    found = 0
    for m in re.finditer(r'gpu\.binary @(\w+).*?assembly = "((?:[^"\\]|\\.)*)"', text, re.S):
        path = os.path.join(out_dir, m.group(1) + ".ptx")
        with open(path, "w") as f:
            f.write(unescape(m.group(2)))
        print(path)
        found += 1
        if args.ptxas:
            r = subprocess.run([args.ptxas, f"-arch={args.arch}", path, "-o",
                                path[:-4] + ".cubin"], capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"extract_ptx: ptxas -arch={args.arch} rejected {path}:\n{r.stderr}")
            print(f"ptxas -arch={args.arch}: ok")
    if not found:
        sys.exit(f"extract_ptx: no gpu.binary with PTX (format=isa) in {src}")


if __name__ == "__main__":
    main()
