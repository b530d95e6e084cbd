#!/usr/bin/env python3
"""Reads the sanitizer logs of scripts/sanitize.sh and decides what fails.

Usage: lsan_filter.py LOG_DIR [--root SRC_ROOT]

LOG_DIR holds the files ASan, UBSan and LeakSanitizer wrote (ASAN_OPTIONS /
UBSAN_OPTIONS log_path). Every AddressSanitizer or UndefinedBehaviorSanitizer
error report fails the run (printed in full). A LeakSanitizer report lists
leaks, each with the stack that allocated it; Python, torch and Debian's
libMLIR.so keep objects until exit that they never free, and those stacks
are not ours. A leak fails the run when one of its first FRAMES frames
below the allocator (malloc, operator new, ...) is in the project's sources
(a file under SRC_ROOT's lib/, include/, tools/ or python/, tools' main
functions excepted, which are on every stack of their process) or in one of
its libraries (libAmpMLIRCAPI.so, libamp_*_runtime.so). Prints a summary line
and exits 1 when something failed, 0 otherwise.
"""
import argparse
import os
import re
import sys

FRAMES = 8
ALLOCATORS = re.compile(r" in (malloc|calloc|realloc|posix_memalign|aligned_alloc|"
                        r"operator new|__interceptor_|__asan_|strdup|valloc)")
FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (.*)$")
OUR_LIBS = re.compile(r"libAmpMLIRCAPI\.so|libamp_(cpu|cuda)_runtime\.so")
MAIN = re.compile(r" in main ")
# A log with LeakSanitizer's "ptrace appears to be blocked (is seccomp
# enabled?)" warning and "Child exited with signal N" but no ERROR line: the
# leak check of that process did not complete (seen in a `bash` that a test
# started with the preloaded runtime, in a container that restricts ptrace).
# Nothing was reported, nothing checked: counted as "not run", not as an error.
LSAN_NOT_RUN = re.compile(r"==\d+==Child exited with signal \d+")


def ours(frame, root):
    if OUR_LIBS.search(frame):
        return True
    for sub in ("lib", "include", "tools", "python"):
        if os.path.join(root, sub) + os.sep in frame:
            return not MAIN.search(frame)
    return False


def leak_blocks(text):
    """Yields (header, frames) for each leak of a LeakSanitizer report."""
    header, frames = None, []
    for line in text.splitlines():
        if line.startswith(("Direct leak", "Indirect leak")):
            if header:
                yield header, frames
            header, frames = line, []
        elif header and FRAME.match(line):
            frames.append(line)
        elif header and not line.strip():
            yield header, frames
            header, frames = None, []
    if header:
        yield header, frames


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs")
    parser.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    root = os.path.realpath(args.root)

    errors, our_leaks, other_leaks, not_run = [], [], 0, []
    for name in sorted(os.listdir(args.logs)):
        path = os.path.join(args.logs, name)
        if not name.startswith(("asan", "ubsan")) or not os.path.isfile(path):
            continue
        text = open(path, errors="replace").read()
        if LSAN_NOT_RUN.search(text) and "ERROR:" not in text:
            not_run.append(name)
            continue
        if "ERROR: LeakSanitizer" not in text or re.search(
                r"ERROR: AddressSanitizer|runtime error:", text):
            if text.strip():
                errors.append((name, text))
            continue
        for header, frames in leak_blocks(text):
            below = [f for f in frames if not ALLOCATORS.search(f)][:FRAMES]
            if any(ours(f, root) for f in below):
                our_leaks.append((name, header, frames))
            else:
                other_leaks += 1

    for name, text in errors:
        print(f"=== {name}\n{text}")
    for name, header, frames in our_leaks:
        print(f"=== {name}: {header}\n" + "\n".join(frames) + "\n")
    if not_run:
        print(f"sanitize: leak check did not run in {len(not_run)} process(es) "
              f"(LeakSanitizer did not complete; ptrace is restricted here): {', '.join(not_run)}")
    print(f"sanitize: {len(errors)} sanitizer error report(s), {len(our_leaks)} "
          f"leak(s) allocated by amp-mlir's code, {other_leaks} leak(s) of "
          "other code (Python, torch, libMLIR.so) not counted")
    return 1 if errors or our_leaks else 0


if __name__ == "__main__":
    sys.exit(main())
