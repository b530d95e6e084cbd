#!/usr/bin/env python3
"""Refreshes the generated table of docs/CastPolicy.md.

The default cast policy lives in lib/Dialect/Amp/Policy/DefaultPolicy.def;
`amp-opt --amp-print-policy-table` prints it with the registered op names.
This script puts that output between the markers of docs/CastPolicy.md.
With --check it exits 1 (printing a diff) when the document is out of date;
the lit suite runs that check.

Usage: utils/gen_policy_doc.py [--check] [--tool build/bin/amp-opt]
"""
import argparse
import difflib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs/CastPolicy.md"
BEGIN = "<!-- BEGIN GENERATED TABLE -->"
END = "<!-- END GENERATED TABLE -->"


def render(amp_opt):
    rows = subprocess.run([amp_opt, "--amp-print-policy-table"], check=True,
                          capture_output=True, text=True).stdout
    current = DOC.read_text()
    head, rest = current.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    n = len(rows.splitlines())
    table = (f"{BEGIN}\n{n} ops.\n\n| op | cuda | cpu | follows |\n"
             f"|---|---|---|---|\n{rows}{END}")
    return current, head + table + tail


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--tool", default=str(ROOT / "build/bin/amp-opt"),
                        help="the amp-opt binary")
    args = parser.parse_args()
    current, text = render(args.tool)
    if args.check:
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), text.splitlines(True),
                "docs/CastPolicy.md", "generated"))
            print("docs/CastPolicy.md is out of date: run utils/gen_policy_doc.py")
            return 1
        print("docs/CastPolicy.md is up to date")
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
