#!/usr/bin/env python3
"""Generates kernels/median_networks.h, the min/max networks of median_blur's `tiled` method.

    python3 scripts/gen_median_networks.py            # rewrites kernels/median_networks.h
    python3 scripts/gen_median_networks.py --report   # op counts only

One work-item computes a tile of TX x TY outputs of a k x k median. The windows of a rectangle of
outputs share a rectangle of inputs (their intersection). The tile is split in halves, recursively
(hierarchical tiling); each node of that tree keeps the sorted list of its shared rectangle, built
from its parent's list merged with the inputs the node adds (whole or partial columns, each sorted
once by a sorting network and reused by every node that needs it). A leaf is one output and its
list is its whole window.

Forgetful pruning: a sorted subset of n values of a window of N = k*k values (median rank
M = (N - 1) / 2) has at least r values of the window below its element of rank r and n - 1 - r
above it. Ranks above M are above the median; ranks below n - 1 - M are below it. Replacing such a
value by +inf (or -inf) leaves the median unchanged, so only ranks [n - 1 - M, M] are kept: the
rest become constants, and constant folding plus dead-code elimination remove every comparison
that no longer matters. Merges are Batcher's odd-even merge, or for a few kept ranks the direct
selection C[r] = max over i + j = r of min(A[i], B[j]), whichever needs fewer operations here.

Every network is checked against sorting on random inputs (many values and few values: ties)
before it is written. The output is plain OpenCL C: one function per configuration, selected by
the KSIZE, TILE_X and TILE_Y build options; VAL_T, MN and MX come from kernels/median.cl.
"""
import argparse
import math
import os
import random
import sys

NEG, POS = "NEG", "POS"

# (k, TX, TY) configurations written to the kernel file; src/ops/median.cpp lists the same ones.
CONFIGS = [(3, 8, 2), (5, 8, 2), (5, 4, 2), (7, 8, 2), (9, 4, 2)]


class Dag:
    """Min/max operations with constant folding (NEG/POS) and common subexpressions merged."""

    def __init__(self):
        self.nodes = []
        self.cse = {}

    def op(self, kind, a, b):
        if a == b:
            return a
        if kind == "min":
            if NEG in (a, b):
                return NEG
            if a == POS:
                return b
            if b == POS:
                return a
        else:
            if POS in (a, b):
                return POS
            if a == NEG:
                return b
            if b == NEG:
                return a
        key = (kind,) + tuple(sorted((a, b), key=repr))
        if key not in self.cse:
            self.cse[key] = ("n", len(self.nodes))
            self.nodes.append((kind, a, b))
        return self.cse[key]

    def mn(self, a, b):
        return self.op("min", a, b)

    def mx(self, a, b):
        return self.op("max", a, b)

    def needed(self, outs):
        seen, stack = set(), list(outs)
        while stack:
            v = stack.pop()
            if isinstance(v, tuple) and v[0] == "n" and v not in seen:
                seen.add(v)
                _, a, b = self.nodes[v[1]]
                stack += [a, b]
        return sorted(seen, key=lambda v: v[1])  # creation order is a topological order

    def evaluate(self, outs, env):
        values = {}

        def value(v):
            if v == NEG:
                return -math.inf
            if v == POS:
                return math.inf
            if v[0] == "in":
                return env[v[1]]
            return values[v]

        for v in self.needed(outs):
            kind, a, b = self.nodes[v[1]]
            values[v] = (min if kind == "min" else max)(value(a), value(b))
        return [value(o) for o in outs]


def sort_network(n):
    """Batcher's merge exchange (Knuth 5.2.2, algorithm M): comparators (i, j) sorting n values."""
    if n < 2:
        return []
    t = math.ceil(math.log2(n))
    p, pairs = 1 << (t - 1), []
    while p > 0:
        q, r, d = 1 << (t - 1), 0, p
        while True:
            pairs += [(i, i + d) for i in range(n - d) if i & p == r]
            if q == p:
                break
            d, q, r = q - p, q >> 1, p
        p >>= 1
    return pairs


def sort_values(dag, values):
    v = list(values)
    for i, j in sort_network(len(v)):
        v[i], v[j] = dag.mn(v[i], v[j]), dag.mx(v[i], v[j])
    return v


def merge(dag, a, b):
    """Batcher's odd-even merge of two sorted lists of any lengths."""
    if not a or not b:
        return list(a) + list(b)
    if len(a) == 1 and len(b) == 1:
        return [dag.mn(a[0], b[0]), dag.mx(a[0], b[0])]
    even, odd = merge(dag, a[0::2], b[0::2]), merge(dag, a[1::2], b[1::2])
    out = [even[0]]
    for i in range(max(len(odd), len(even) - 1)):
        if i < len(odd) and i + 1 < len(even):
            out += [dag.mn(odd[i], even[i + 1]), dag.mx(odd[i], even[i + 1])]
        else:
            out.append(odd[i] if i < len(odd) else even[i + 1])
    return out


def select(dag, a, b, r):
    """Element r of the merge of sorted a and b: max over i + j = r of min(a[i], b[j])."""
    best = None
    for i in range(len(a) + 1):
        j = r - i
        if 0 <= j <= len(b) and (i < len(a) or j < len(b)):
            m = dag.mn(a[i] if i < len(a) else POS, b[j] if j < len(b) else POS)
            best = m if best is None else dag.mx(best, m)
    return best


class Subset:
    """The sorted values of a subset of n window values; vals hold ranks lo .. lo + len - 1."""

    def __init__(self, vals, lo, n):
        self.vals, self.lo, self.n = vals, lo, n


def merge_subsets(dag, x, y, rank):
    n, lo = x.n + y.n, x.lo + y.lo
    first = max(n - 1 - rank, lo, 0)
    last = min(rank, n - 1, lo + len(x.vals) + len(y.vals) - 1)
    keep = range(first - lo, last - lo + 1)

    def cost(build):
        scratch = Dag()
        a = [("in", ("a", i)) for i in range(len(x.vals))]
        b = [("in", ("b", i)) for i in range(len(y.vals))]
        return len(scratch.needed(build(scratch, a, b)))

    def by_merge(d, a, b):
        v = merge(d, a, b)
        return [v[i] for i in keep]

    def by_select(d, a, b):
        return [select(d, a, b, i) for i in keep]

    build = by_select if cost(by_select) < cost(by_merge) else by_merge
    return Subset(build(dag, x.vals, y.vals), first, n)


def tile_network(k, tx, ty, split, strip_tree, share_rows):
    """The network of one tile; inputs ("in", (x, y)) for x < tx + k - 1, y < ty + k - 1."""
    dag = Dag()
    rank = (k * k) // 2
    columns = {}

    def column(c, a, b):  # sorted column c, rows [a, b)
        if (c, a, b) not in columns:
            core_a, core_b = ty - 1, k  # the rows every output row of the tile reads
            if share_rows and a <= core_a < core_b <= b and (a, b) != (core_a, core_b):
                above = column(c, a, core_a) if a < core_a else []
                below = column(c, core_b, b) if core_b < b else []
                columns[(c, a, b)] = merge(dag, merge(dag, above, column(c, core_a, core_b)), below)
            else:
                columns[(c, a, b)] = sort_values(dag, [("in", (c, y)) for y in range(a, b)])
        return columns[(c, a, b)]

    def piece(c, a, b):
        return Subset(column(c, a, b), 0, b - a)

    def merge_all(pieces):
        pieces = list(pieces)
        while len(pieces) > 1:
            pieces.sort(key=lambda s: len(s.vals))
            pieces.append(merge_subsets(dag, pieces.pop(0), pieces.pop(0), rank))
        return pieces[0]

    outs = {}

    def node(x0, x1, y0, y1, parent, prect):
        c0, c1, r0, r1 = x1 - 1, x0 + k, y1 - 1, y0 + k  # shared columns [c0, c1), rows [r0, r1)
        here = None
        if c0 < c1 and r0 < r1:
            if parent is None:
                here = merge_all(piece(c, r0, r1) for c in range(c0, c1))
            else:
                pc0, pc1, pr0, pr1 = prect
                pieces = []
                for c in range(c0, c1):
                    if pc0 <= c < pc1:
                        if r0 < pr0:
                            pieces.append(piece(c, r0, pr0))
                        if pr1 < r1:
                            pieces.append(piece(c, pr1, r1))
                    else:
                        pieces.append(piece(c, r0, r1))
                here = parent
                if pieces and strip_tree:
                    here = merge_subsets(dag, parent, merge_all(pieces), rank)
                else:
                    for p in sorted(pieces, key=lambda s: len(s.vals)):
                        here = merge_subsets(dag, here, p, rank)
        rect = (c0, c1, r0, r1) if here is not None else None
        w, h = x1 - x0, y1 - y0
        if w == 1 and h == 1:
            assert here.n == k * k and len(here.vals) == 1
            outs[(x0, y0)] = here.vals[0]
            return
        along_x = {"x": w > 1 and w >= h, "y": not (h > 1 and h >= w), "xfirst": w > 1, "yfirst": h == 1}[split]
        if along_x:
            m = x0 + (w + 1) // 2
            node(x0, m, y0, y1, here, rect)
            node(m, x1, y0, y1, here, rect)
        else:
            m = y0 + (h + 1) // 2
            node(x0, x1, y0, m, here, rect)
            node(x0, x1, m, y1, here, rect)

    node(0, tx, 0, ty, None, None)
    return dag, [outs[(x, y)] for y in range(ty) for x in range(tx)]


def best_network(k, tx, ty):
    best = None
    for split in ("x", "y", "xfirst", "yfirst"):
        for strip_tree in (True, False):
            for share_rows in (True, False):
                dag, outs = tile_network(k, tx, ty, split, strip_tree, share_rows)
                ops = len(dag.needed(outs))
                if best is None or ops < best[0]:
                    best = (ops, dag, outs, (split, strip_tree, share_rows))
    return best


def check(k, tx, ty, dag, outs, trials=300):
    rng = random.Random(k * 1000 + tx * 10 + ty)
    for t in range(trials):
        levels = (256, 2, 3, 5)[t % 4]
        env = {(x, y): rng.randrange(levels) for x in range(tx + k - 1) for y in range(ty + k - 1)}
        got = dag.evaluate(outs, env)
        for y in range(ty):
            for x in range(tx):
                window = sorted(env[(x + i, y + j)] for i in range(k) for j in range(k))
                if got[y * tx + x] != window[len(window) // 2]:
                    sys.exit(f"network {k}x{k} {tx}x{ty} is wrong at output ({x}, {y})")


def emit(k, tx, ty, dag, outs, how):
    width = tx + k - 1
    names = {}

    def name(v):
        if v[0] == "in":
            x, y = v[1]
            return f"p[{y * width + x}]"
        return names[v]

    body, line = [], []
    for v in dag.needed(outs):
        kind, a, b = dag.nodes[v[1]]
        names[v] = f"t{len(names)}"
        line.append(f"const VAL_T {names[v]} = {'MN' if kind == 'min' else 'MX'}({name(a)}, {name(b)});")
        if len(line) == 3:
            body.append("  " + " ".join(line))
            line = []
    if line:
        body.append("  " + " ".join(line))
    for i, o in enumerate(outs):
        body.append(f"  o[{i}] = {name(o)};")
    split, strip_tree, share_rows = how
    head = [
        f"#if KSIZE == {k} && TILE_X == {tx} && TILE_Y == {ty}",
        f"/* {k}x{k} medians of {tx}x{ty} outputs from {width}x{ty + k - 1} inputs: {len(names)} min/max, "
        f"{len(names) / (tx * ty):.1f} per output",
        f" * (split {split}, {'strips merged first' if strip_tree else 'pieces merged one by one'}"
        f"{', column cores shared by the rows' if share_rows else ''}). */",
        "#define MEDIAN_TILE_NETWORK 1",
        "INLINE void median_tile_network(const VAL_T* p, VAL_T* o) {",
    ]
    return head + body + ["}", "#endif", ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="print op counts, write nothing")
    parser.add_argument("--output", default=os.path.join(os.path.dirname(__file__), "..", "kernels", "median_networks.h"))
    args = parser.parse_args()
    lines = [
        "/* GENERATED by scripts/gen_median_networks.py: do not edit; change the script and rerun it.",
        " * The min/max networks of median_blur's `tiled` method (kernels/median.cl includes this file",
        " * with VAL_T, MN and MX defined). median_tile_network(p, o) reads the (TILE_X + KSIZE - 1) x",
        " * (TILE_Y + KSIZE - 1) inputs p, row by row, and writes the TILE_X x TILE_Y medians o, row by",
        " * row. The script's docstring explains the construction and why it is exact. */",
        "",
    ]
    for k, tx, ty in CONFIGS:
        ops, dag, outs, how = best_network(k, tx, ty)
        check(k, tx, ty, dag, outs)
        print(f"{k}x{k} tile {tx}x{ty}: {ops} min/max, {ops / (tx * ty):.1f} per output {how}")
        lines += emit(k, tx, ty, dag, outs, how)
    lines += ["#ifndef MEDIAN_TILE_NETWORK", "#error no median network for this KSIZE, TILE_X and TILE_Y", "#endif"]
    if not args.report:
        with open(args.output, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
