#!/usr/bin/env python3
"""--format html's page, read with an XML parser (the page is well-formed
XML by design, so a structural check needs no HTML library):

- self-contained: no script, no external style sheet, image, font or frame,
  no URL but the SVG namespace, no CSS url();
- its parts: the title, the workload, the chart (an inline SVG with the
  value frontier and one circle per plan that fits with a price and a speed),
  the memory bars (one row per shown plan) and the ranking table (one row
  per shown plan, the same columns as the CSV);
- escaped: a model file named <b>&"q'.json comes back as that text, never
  as markup;
- refused, exit 2, by the commands that rank nothing.

Run as: check_html.py GPUADVISE_BINARY
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


def run(args):
    r = subprocess.run([BIN, *args], capture_output=True, env=ENV, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"FAIL {' '.join(args)}: exit {r.returncode}: {r.stderr.decode()[:300]}")
    return r.stdout.decode("utf-8")


def check_page(args, top, problems):
    name = " ".join(args)
    text = run([*args, "--format", "html"])
    if not text.startswith("<!DOCTYPE html>\n"):
        problems.append(f"{name}: no <!DOCTYPE html> first")
    root = ET.fromstring(text)
    if root.tag != "html" or root.find("head/title") is None:
        problems.append(f"{name}: not an <html> page with a <title>")
    meta = root.find("head/meta")
    if meta is None or meta.get("charset") != "utf-8":
        problems.append(f"{name}: the first <meta> is not charset utf-8")
    for el in root.iter():
        tag = el.tag.replace(SVG, "svg:")
        if tag in ("script", "link", "img", "iframe", "object", "embed", "svg:script",
                   "svg:image", "svg:foreignObject"):
            problems.append(f"{name}: a <{tag}> element: the page must be self-contained")
        for key, value in el.attrib.items():
            if key.startswith("on"):
                problems.append(f"{name}: an event handler {key}= on <{tag}>")
            if ("http:" in value or "https:" in value or "//" in value) and \
                    value != "http://www.w3.org/2000/svg":
                problems.append(f"{name}: <{tag} {key}={value!r}> points outside the page")
    style = "".join(s.text or "" for s in root.iter("style"))
    if "url(" in style or "@import" in style:
        problems.append(f"{name}: the style sheet fetches something")
    sections = {s.get("id"): s for s in root.iter("section") if s.get("id")}
    for part in ("workload", "chart", "memory", "ranking"):
        if part not in sections:
            problems.append(f"{name}: no section {part}")
    if problems:
        return root

    # The ranking table: the CSV's rows, as people read them.
    csv_rows = list(csv.reader(io.StringIO(run([*args, "--format", "csv"]), newline="")))
    table = sections["ranking"].find(".//table")
    heads = [th.text for th in table.find("thead/tr")]
    rows = table.findall("tbody/tr")
    if len(rows) != min(top, len(csv_rows) - 1):
        problems.append(f"{name}: {len(rows)} table rows, {min(top, len(csv_rows) - 1)} expected")
    if len(heads) != len(csv_rows[0]):
        problems.append(f"{name}: the page's table has {len(heads)} columns, the CSV {len(csv_rows[0])}")
    for tr, record in zip(rows, csv_rows[1:]):
        cells = [td.text or "" for td in tr]
        if cells[1] != record[1]:
            problems.append(f"{name}: row {cells[0]} is {cells[1]}, the CSV's {record[1]}")

    # The chart: one circle per plan drawn, and the key's two.
    chart = sections["chart"].find(SVG + "svg")
    if chart is None:
        problems.append(f"{name}: the chart has no inline <svg>")
        return root
    frontier = [p for p in chart.iter(SVG + "path") if p.get("class") == "frontier"]
    circles = [c for c in chart.iter(SVG + "circle")]
    # Every plan, not only the shown ones, is a point when it fits.
    base = args[:args.index("--top")] + args[args.index("--top") + 2:] if "--top" in args else args
    more = [] if args[0] == "compare" else ["--top", "1000"]
    every = list(csv.reader(io.StringIO(run([*base, *more, "--format", "csv"]),
                                        newline="")))
    fitting = sum(1 for r in every[1:] if r[3] != "no" and r[10] != "" and r[8] != "")
    if not frontier:
        problems.append(f"{name}: no value frontier in the chart")
    if len(circles) != fitting + 2:
        problems.append(f"{name}: {len(circles) - 2} points drawn, {fitting} plans fit with a "
                        "price and a speed")
    memory = sections["memory"].find(SVG + "svg")
    labels = [t for t in memory.iter(SVG + "text") if (t.text or "").startswith("#")]
    if len(labels) != len(rows):
        problems.append(f"{name}: {len(labels)} memory bars, {len(rows)} plans shown")
    print(f"ok  {name}: {len(rows)} rows, {len(circles) - 2} points")
    return root


if __name__ == "__main__":
    BIN = sys.argv[1]
    problems = []
    check_page(["compare", "rtx-4090", "rtx-3090", "rtx-5090", "h100-pcie", "mi300x", "--model",
                "llama-3.1-8b"], 5, problems)
    check_page(["--model", "llama-3.1-70b", "--quant", "awq-int4", "--top", "8"], 8, problems)
    # Escaping: the model's name comes from a file name with every HTML
    # metacharacter; the parser must read it back as text.
    folder = tempfile.mkdtemp()
    try:
        odd = os.path.join(folder, "<b>&\"q'.json")
        shutil.copy(os.path.join(os.path.dirname(__file__), "../data/hf/gpt-oss-20b.config.json"),
                    odd)
        root = check_page(["--hf-config", odd, "--top", "3"], 3, problems)
        title = root.find("head/title").text or ""
        if "<b>&\"q'.json" not in title:
            problems.append(f"escaping: the title reads {title!r}")
        if root.find(".//b") is not None:
            problems.append("escaping: a file name made a <b> element")
    finally:
        shutil.rmtree(folder)
    # Only the commands that rank have a page; the others say so and exit 2.
    for args in (["gpus"], ["estimate", "--model", "8B"]):
        r = subprocess.run([BIN, *args, "--format", "html"], capture_output=True, env=ENV,
                           timeout=60)
        if r.returncode != 2 or b"ranks nothing" not in r.stderr or r.stdout:
            problems.append(f"{' '.join(args)} --format html: exit {r.returncode}, "
                            f"{r.stderr.decode()[:200]!r}")
    for p in problems:
        print("FAIL", p)
    sys.exit(1 if problems else 0)
