#!/usr/bin/env python3
"""Checks host code after `amp-gpu-async-launches` for stream-order hazards.

Reads the IR that `amp-opt --mlir-print-ir-after=amp-gpu-async-launches`
prints (standard input, pretty form) and follows each block: an async
`gpu.launch_func`, `gpu.memcpy`, `gpu.memset` or `gpu.dealloc` leaves its
token pending until a `gpu.wait [...]` on it. While a token is pending, only
these may appear (an allow-list, written apart from the pass's own rules):
ops without memory effects (arith, index, math, affine.apply, memref
metadata, views and constants' get_global, casts), allocations (`gpu.alloc`, `memref.alloc`),
the runtime's queued cuBLAS calls (`@ampCublasMatmul*Queued`),
stream starts (`gpu.wait async`), further queued ops, and an `scf.if` whose
regions only free buffers. Anything else (a host load or store, a call, a
copy, a terminator, another region op) is reported with its line.

Prints `stream order: N functions, M queued ops, K waits, no hazards` and
exits 0, or lists the hazards and exits 1. Usage:

    amp-opt step.mlir --amp-cuda-pipeline=format=isa --mlir-disable-threading \\
        --mlir-print-ir-after=amp-gpu-async-launches -o /dev/null 2>&1 \\
        | python3 utils/check_stream_order.py
"""
import re
import sys

QUEUED = re.compile(r"^(%[\w.#]+) = gpu\.(launch_func|memcpy|memset|dealloc) async \[")
START = re.compile(r"^%[\w.#]+ = gpu\.wait async\s*$")
WAIT = re.compile(r"^gpu\.wait \[([^\]]*)\]")
ALLOWED = re.compile(
    r"^(%[\w.#:, %]+ = )?(arith\.|index\.|math\.|affine\.apply|affine\.delinearize_index|"
    r"memref\.(dim|extract_strided_metadata|extract_aligned_pointer_as_index|subview|get_global|"
    r"cast|reinterpret_cast|expand_shape|collapse_shape|view|alloc\b)|gpu\.alloc|"
    r"builtin\.unrealized_conversion_cast|llvm\.mlir\.(constant|undef|poison|zero)|"
    # The runtime's queued cuBLAS GEMM: enqueued on the legacy default
    # stream, which the device orders with the blocking streams.
    r"(func\.)?call @ampCublasMatmul\w+Queued\()")
FREE_ONLY = re.compile(r"^(gpu\.wait|%[\w.#]+ = gpu\.wait async|%[\w.#]+ = gpu\.dealloc async|"
                       r"scf\.yield\s*$|\}|%[\w.#:, %]+ = arith\.)")


def check(lines):
    hazards, functions, queued, waits = [], 0, 0, 0
    # One entry per open block: the pending tokens.
    stack = []
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if not line or line.startswith("//") or line.startswith("#"):
            continue
        if line.startswith("func.func"):
            functions += 1
            if line.endswith("{"):
                stack = [set()]
            continue
        if not stack:
            continue
        pending = stack[-1]
        m = QUEUED.match(line)
        if m:
            queued += 1
            pending.clear()  # the chain: each queued op follows the last
            pending.add(m.group(1))
            continue
        m = WAIT.match(line)
        if m:
            waits += 1
            for token in (t.strip() for t in m.group(1).split(",")):
                pending.discard(token)
            continue
        if START.match(line) or ALLOWED.match(line):
            continue
        if line.startswith("}"):
            # The end of a block: `} else {` opens the next one.
            if stack[-1]:
                hazards.append(f"line {i}: the block ends with {sorted(stack[-1])} queued")
            stack.pop()
            if line.endswith("{"):
                stack.append(set())
            continue
        if line.endswith("{"):
            if pending and line.startswith("scf.if"):
                # Allowed if its regions only free buffers.
                depth, j, free_only = 1, i, True
                while j < len(lines) and depth:
                    inner = lines[j].strip()
                    depth += inner.count("{") - inner.count("}")
                    if depth and inner and not FREE_ONLY.match(inner):
                        free_only = False
                    j += 1
                if not free_only:
                    hazards.append(f"line {i}: `{line[:80]}` while {sorted(pending)} is queued")
            elif pending:
                hazards.append(f"line {i}: `{line[:80]}` while {sorted(pending)} is queued")
            stack.append(set())
            continue
        if pending:
            hazards.append(f"line {i}: `{line[:80]}` while {sorted(pending)} is queued")
    return hazards, functions, queued, waits


def main():
    hazards, functions, queued, waits = check(sys.stdin.read().splitlines())
    if hazards:
        print("stream-order hazards:\n  " + "\n  ".join(hazards))
        return 1
    if not functions:
        print("check_stream_order.py: no func.func in the input", file=sys.stderr)
        return 2
    print(f"stream order: {functions} functions, {queued} queued ops, {waits} waits, "
          "no hazards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
