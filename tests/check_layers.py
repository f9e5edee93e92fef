#!/usr/bin/env python3
"""The include graph is a DAG of layers, and this test keeps it one.

Reads the layer list of docs/ARCHITECTURE.md (the block between
<!-- layers:begin --> and <!-- layers:end -->): lines "layer N NAME modules..."
from the bottom up, and lines "module NAME files..." for a module made of
several files (a file's module is otherwise its stem: src/memory.cpp and
include/gpuadvise/memory.hpp are "memory"; src/cli/io.cpp is "cli/io").

Fails when a source file belongs to no listed module (the list names every
file), when a file includes a module of a higher layer, or when the modules'
include graph has a cycle. Run as: check_layers.py ROOT [--self-test]
(--self-test checks that a tree with an upward include fails).
"""
import os
import re
import sys
import tempfile

SOURCES = [("include/gpuadvise", ".hpp"), ("src", ".cpp"), ("src", ".hpp"), ("src/cli", ".cpp"),
           ("src/cli", ".hpp"), ("src/tools", ".cpp")]


def stem_of(rel):
    stem = os.path.splitext(os.path.basename(rel))[0]
    folder = os.path.dirname(rel)
    if folder == "src/cli":
        return "cli/" + stem
    if folder == "src/tools":
        return "tools/" + stem
    return stem


def included_stem(name):
    base = os.path.splitext(name)[0]
    if base.startswith("gpuadvise/"):
        return base[len("gpuadvise/"):]
    return base  # "cli/io", or a private header of src/ ("memory_common")


def read_layers(root):
    text = open(os.path.join(root, "docs/ARCHITECTURE.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers:begin[^>]*-->(.*?)<!-- layers:end -->", text, re.S)
    if not m:
        raise SystemExit("docs/ARCHITECTURE.md has no <!-- layers:begin --> block")
    layer_of, owner, names = {}, {}, {}
    for line in m.group(1).splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "layer":
            n = int(words[1])
            names[n] = words[2]
            for mod in words[3:]:
                if mod in layer_of:
                    raise SystemExit(f"layers: module {mod} is listed twice")
                layer_of[mod] = n
        elif len(words) >= 3 and words[0] == "module":
            for f in words[2:]:
                owner[f] = words[1]
    return layer_of, owner, names


def check(root):
    layer_of, owner, names = read_layers(root)
    problems = []
    edges = {}
    for folder, ext in SOURCES:
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith(ext):
                continue
            rel = os.path.join(folder, name)
            mod = owner.get(stem_of(rel), stem_of(rel))
            if mod not in layer_of:
                problems.append(f"{rel}: its module '{mod}' is in no layer of docs/ARCHITECTURE.md")
                continue
            text = open(os.path.join(root, rel), encoding="utf-8").read()
            for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
                target = owner.get(included_stem(inc), included_stem(inc))
                if target == mod:
                    continue
                if target not in layer_of:
                    problems.append(f"{rel}: includes {inc}, whose module '{target}' is in no layer")
                    continue
                edges.setdefault(mod, set()).add(target)
                if layer_of[target] > layer_of[mod]:
                    problems.append(
                        f"{rel}: includes {inc} ({target}, layer {layer_of[target]} "
                        f"{names[layer_of[target]]}) from layer {layer_of[mod]} {names[layer_of[mod]]}: "
                        "an include goes up a layer")
    # No cycle among modules (within a layer too).
    state = {}

    def visit(v, path):
        state[v] = 1
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                problems.append("include cycle: " + " -> ".join(path + [w]))
            elif w not in state:
                visit(w, path + [w])
        state[v] = 2

    for v in sorted(edges):
        if v not in state:
            visit(v, [v])
    return problems


def self_test():
    """A tree whose lower module includes a higher one must fail."""
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "docs"))
        os.makedirs(os.path.join(d, "src"))
        os.makedirs(os.path.join(d, "include/gpuadvise"))
        open(os.path.join(d, "docs/ARCHITECTURE.md"), "w").write(
            "<!-- layers:begin -->\nlayer 1 low text\nlayer 2 high rank\n<!-- layers:end -->\n")
        open(os.path.join(d, "src/text.cpp"), "w").write('#include "gpuadvise/rank.hpp"\n')
        open(os.path.join(d, "src/rank.cpp"), "w").write('#include "gpuadvise/text.hpp"\n')
        open(os.path.join(d, "src/orphan.cpp"), "w").write("\n")
        problems = check(d)
        assert any("goes up a layer" in p for p in problems), problems
        assert any("orphan" in p for p in problems), problems
    print("check_layers self-test: an upward include and an unlisted file are found")


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: check_layers.py ROOT [--self-test]")
    if "--self-test" in sys.argv:
        self_test()
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        raise SystemExit(f"{len(problems)} layering problems (docs/ARCHITECTURE.md, 'Layers')")
    print("layers: every include goes to the same or a lower layer; no cycles")


if __name__ == "__main__":
    main()
