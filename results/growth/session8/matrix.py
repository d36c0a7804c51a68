#!/usr/bin/env python3
"""Faults to read 1 GiB files by layout and write pattern, stock -> patched,
from the growth-row lines of make growth consoles (later files win)."""
import sys

FILLS = ["append4k", "append64k", "append1m", "append4m", "reopen64k",
         "cp", "concurrent4-256k"]


def load(paths):
    rows = {}
    for path in paths:
        seen = {}
        for line in open(path):
            if not line.startswith("growth-row: "):
                continue
            f = line.split()
            layout, fill, mib, faults = f[1], f[2], f[3], int(f[4])
            if mib != "1024":
                continue
            key = (layout, fill)
            # one file system per layout and file: later files replace
            if key not in seen:
                rows[key] = []
                seen[key] = True
            rows[key].append(faults)
    return rows


def cell(vals):
    if not vals:
        return "-"
    lo, hi = min(vals), max(vals)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"


def main():
    stock = load([p for p in sys.argv[1:] if "stock" in p])
    patched = load([p for p in sys.argv[1:] if "patched" in p])
    layouts = []
    for layout, _ in list(patched) + list(stock):
        if layout not in layouts:
            layouts.append(layout)
    print("| layout | " + " | ".join(FILLS) + " |")
    print("| --- |" + " ---: |" * len(FILLS))
    for layout in layouts:
        cells = []
        for fill in FILLS:
            s = cell(stock.get((layout, fill), []))
            p = cell(patched.get((layout, fill), []))
            cells.append(f"{s} → {p}")
        print(f"| {layout} | " + " | ".join(cells) + " |")


main()
