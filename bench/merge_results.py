#!/usr/bin/env python3
"""Prints one table from several benchmark JSON documents (schema "plinth-bench/1"): the output of
`plinth bench --json` (plinth and NPP, device events) and of bench/peers/opencv_ocl_peer.py
(OpenCV's OpenCL path, host clock). Cases of the same op, size and config share a group.

    python3 bench/merge_results.py bench.json opencv_ocl.json [--markdown]

The copy fraction uses the device copy of the first document that has one measured by device
events (plinth's), so that every row is compared with the same ceiling.
"""

import argparse
import json
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "plinth-bench/1":
        raise SystemExit(f"merge_results: {path}: not a plinth-bench/1 document")
    return doc


def copy_gbps(doc):
    before = (doc.get("copy") or {}).get("before") or {}
    return before.get("gb_per_s") or 0.0


def is_npp(case):
    return case["variant"].startswith("npp")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="JSON documents (missing or empty ones are skipped with a note)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables (for docs/PERFORMANCE.md)")
    args = parser.parse_args()

    docs = []
    for path in args.files:
        try:
            docs.append((path, load(path)))
        except (OSError, ValueError) as e:
            print(f"merge_results: skipping {path}: {e}", file=sys.stderr)
    if not docs:
        print("merge_results: no documents to merge", file=sys.stderr)
        return 1

    ceiling, ceiling_from = 0.0, ""
    for path, doc in docs:
        if doc.get("tool") == "plinth" and copy_gbps(doc) > 0:
            ceiling, ceiling_from = copy_gbps(doc), path
            break
    if not ceiling:
        for path, doc in docs:
            if copy_gbps(doc) > 0:
                ceiling, ceiling_from = copy_gbps(doc), path
                break

    print()
    for path, doc in docs:
        dev = doc.get("device") or {}
        print(f"{path}: {doc.get('tool', '?')} {doc.get('date', '')} on {dev.get('name', '?')}"
              f" [{dev.get('platform', dev.get('device_version', ''))}] {len(doc.get('cases', []))} cases")
        if doc.get("command"):
            print(f"    command: {doc['command']}")
        if copy_gbps(doc):
            print(f"    device copy: {copy_gbps(doc):.1f} GB/s (read + write)")
        floor = ((doc.get("command_floor") or {}).get("stats") or {}).get("median_us")
        if floor:
            print(f"    command floor ({doc['command_floor'].get('what', '?')}): {floor:.2f} us")
        if doc.get("skipped"):
            print(f"    skipped for time: {', '.join(doc['skipped'])}")
    if ceiling:
        print(f"copy fraction relative to {ceiling:.1f} GB/s from {ceiling_from}")

    cases = []
    for index, (path, doc) in enumerate(docs):
        for c in doc.get("cases", []):
            c = dict(c)
            c["_file"] = index
            c["_clock"] = "host" if c.get("timing") == "host_clock" else "dev"
            cases.append(c)

    def size_of(c):
        return f"{c['width']}x{c['height']}"

    rank = {}
    for c in cases:
        rank.setdefault(("op", c["op"]), len(rank))
        rank.setdefault(("size", c["op"], size_of(c)), len(rank))
        rank.setdefault(("config", c["op"], c.get("config", "")), len(rank))

    def kind(c):
        return 2 if c["variant"] == "opencv_ocl" else (1 if is_npp(c) else 0)

    cases.sort(key=lambda c: (rank[("op", c["op"])], rank[("size", c["op"], size_of(c))],
                              rank[("config", c["op"], c.get("config", ""))], kind(c)))

    def npp_partner(c):
        if is_npp(c) or "stats" not in c:
            return None
        config = c.get("compare_config") or c.get("config", "")
        for p in cases:
            if is_npp(p) and "stats" in p and p["op"] == c["op"] and size_of(p) == size_of(c) and p.get("config") == config:
                return p
        return None

    notes = []

    def note_ref(text):
        if text not in notes:
            notes.append(text)
        return notes.index(text) + 1

    columns = ["variant", "clock", "median us", "min us", "p10 us", "p90 us", "Gpx/s", "GB/s", "copy", "vs NPP"]
    group = None
    for c in cases:
        key = (c["op"], size_of(c), c.get("config", ""))
        if key != group:
            group = key
            title = f"{c['op']}  {c.get('config') or '-'}  {size_of(c)}"
            if c.get("bytes"):
                amount = f"{c['bytes'] / 1e6:.1f} MB" if c["bytes"] >= 1e6 else f"{c['bytes'] / 1e3:.1f} kB"
                title += f"  ({amount} moved per run)"
            print()
            if args.markdown:
                print(f"**{title}**\n")
                print("| " + " | ".join(columns) + " |")
                print("|" + "---|" * len(columns))
            else:
                print(title)
                print(f"  {'variant':<22} {'clock':>5} {'median us':>11} {'min us':>10} {'p10 us':>10} {'p90 us':>10}"
                      f" {'Gpx/s':>9} {'GB/s':>9} {'copy':>7} {'vs NPP':>8}")
        variant = c["variant"]
        if c.get("note"):
            variant += f" [{note_ref(c['note'])}]"
        if "stats" not in c:
            error = c.get("error", "no result")
            if args.markdown:
                print(f"| {variant} | {c['_clock']} | error: {error} |" + " |" * (len(columns) - 3))
            else:
                print(f"  {variant:<22} ERROR: {error}")
            continue
        s = c["stats"]
        gbps = c.get("gb_per_s", 0.0)
        copy = f"{100 * gbps / ceiling:.1f}%" if ceiling and c.get("bytes") else "-"
        partner = npp_partner(c)
        vs = f"{partner['stats']['median_us'] / s['median_us']:.2f}x" if partner else ""
        values = [variant, c["_clock"], f"{s['median_us']:.2f}", f"{s['min_us']:.2f}", f"{s['p10_us']:.2f}",
                  f"{s['p90_us']:.2f}", f"{c.get('gpx_per_s', 0):.3f}", f"{gbps:.1f}", copy, vs]
        if args.markdown:
            print("| " + " | ".join(values) + " |")
        else:
            print(f"  {values[0]:<22} {values[1]:>5} {values[2]:>11} {values[3]:>10} {values[4]:>10} {values[5]:>10}"
                  f" {values[6]:>9} {values[7]:>9} {values[8]:>7} {values[9]:>8}")
    if notes:
        print()
        for i, text in enumerate(notes, 1):
            print(f"[{i}] {text}")
    print("\nclock: dev = device events (plinth, NPP); host = host clock including launch overhead (OpenCV OpenCL)."
          "\nvs NPP: NPP's median over this row's; copy: GB/s as a fraction of the device copy.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
