#!/usr/bin/env python3
"""Every command's CSV read back with Python's csv module (a reader that is
not ours): one header and records of its length, RFC 4180 quoting exactly as
csv writes it (writing the records back gives the same bytes), and cells that
a spreadsheet reads as numbers: a column whose header names a unit
("Need/GPU (GiB)", "System (USD)") holds bare numbers, or nothing for an
unknown, never "14.3 GiB", "$2699" or "-".

Run as: check_csv.py GPUADVISE_BINARY
"""
import csv
import io
import re
import subprocess
import sys

COMMANDS = [
    # serving: $/Mtok, Engine
    ["--model", "llama-3.1-70b", "--quant", "awq-int4", "--top", "30"],
    # a training job: Job $
    ["--model", "llama-3.1-8b", "--method", "full", "--tokens", "1B", "--top", "20"],
    # images: img/s
    ["--model", "sdxl", "--top", "10"],
    ["compare", "rtx-4090", "rtx-3090", "h100-pcie", "mi300x", "--model", "llama-3.1-8b"],
    ["fit", "--gpu", "rtx-4090"],
    ["gpus"],
    ["models"],
    ["rules"],
]

# Columns that hold numbers although their header names no unit (the unit
# is the header, or a count: parameters are exact integers).
NUMERIC = {"#", "GPUs", "Params", "Active", "tok/s", "Train tok/s", "img/s", "Train img/s", "frames/s", "BF16 TFLOPS"}
UNIT = re.compile(r"\(([^()]+)\)$")


def number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def check(args, problems):
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "COLUMNS": "80"}
    run = subprocess.run([BIN, *args, "--format", "csv"], capture_output=True, env=env,
                         timeout=120)
    name = " ".join(args)
    if run.returncode != 0:
        problems.append(f"{name}: exit {run.returncode}: {run.stderr.decode()[:300]}")
        return
    text = run.stdout.decode("utf-8")
    if not text.endswith("\r\n"):
        problems.append(f"{name}: the last record does not end in CRLF")
    records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    if len(records) < 2:
        problems.append(f"{name}: {len(records)} records; a header and rows expected")
        return
    header = records[0]
    # Round trip: csv's own writer, RFC 4180's CRLF and minimal quoting,
    # gives back the bytes the command printed.
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\r\n").writerows(records)
    if out.getvalue() != text:
        problems.append(f"{name}: writing the records back with csv gives other bytes")
    for i, record in enumerate(records[1:], start=2):
        if len(record) != len(header):
            problems.append(f"{name}: record {i} has {len(record)} cells, the header {len(header)}")
            continue
        for head, cell in zip(header, record):
            if UNIT.search(head) or head in NUMERIC:
                if cell != "" and not number(cell):
                    problems.append(f"{name}: record {i}, {head!r}: {cell!r} is not a number")
            if "\n" in cell or "\r" in cell:
                problems.append(f"{name}: record {i}, {head!r}: a line break in a cell")
    print(f"ok  {name}: {len(records) - 1} rows, {len(header)} columns")


if __name__ == "__main__":
    BIN = sys.argv[1]
    problems = []
    for args in COMMANDS:
        check(args, problems)
    for p in problems:
        print("FAIL", p)
    sys.exit(1 if problems else 0)
