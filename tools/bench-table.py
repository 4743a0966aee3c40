#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py DIR: the table of an interleaved `make bench`.

DIR holds round-<N>-<mode>.log, the console of each benchmark boot
(tools/bench runs the two trees' boots in turn: patched, baseline,
patched, ...).  Every figure is a line the benchmark suites print:

    bench: <op> order-<n>: <value> MiB/s        (kunit/iov_iter/iov_iter_bench.c)
    netfs-bench: <what>: <value> <unit>         (kunit/netfs/netfs_bench.c)

Per row: the median and the range (min-max) of each tree over the rounds,
the ratio of the medians as a speed-up (patched/baseline for MiB/s,
baseline/patched for times: above 1 is ours faster either way), and a
verdict.  A row is "ahead" or "behind" only when the two ranges do not
overlap; otherwise it is "even", whatever the ratio says.

The profile rows of `make bench VERBOSE=1` (<row>/submit, /end, /fake,
/vm) get no verdict ("info"): how the library's work splits between
submit and end differs by design between the trees (upstream unlocks an
inline read's folios at the end of its submission, ours as each slice
ends).  Below the table, per profiled row: the library's share per slice
(submit + end) with its verdict, and the ceiling: how much faster than
upstream a read of that row could be if the library cost nothing, that
is upstream's total over its fake + vm, the work both trees share.
"""

import re
import statistics
import sys
from pathlib import Path

MODES = ("patched", "baseline")
LINE = re.compile(r"(?:^|\s)(?:bench: (?P<op>[a-z_]+) (?P<order>order-\d+)|"
                  r"netfs-bench: (?P<what>[^:]+)): (?P<value>\d+) (?P<unit>[A-Za-z/]+)")


def read_rounds(d):
    """{mode: {row: [values]}}, {row: unit}, rounds per mode"""
    values = {m: {} for m in MODES}
    units, order, rounds = {}, [], {m: 0 for m in MODES}
    for log in sorted(d.glob("round-*-*.log")):
        m = re.fullmatch(r"round-(\d+)-(\w+)\.log", log.name)
        if not m or m.group(2) not in MODES:
            continue
        mode = m.group(2)
        rounds[mode] += 1
        for line in log.read_text(errors="replace").splitlines():
            f = LINE.search(line)
            if not f:
                continue
            row = (f"iov/{f['op']} {f['order']}" if f["op"] else f["what"])
            if row not in units:
                units[row] = f["unit"]
                order.append(row)
            values[mode].setdefault(row, []).append(int(f["value"]))
    return values, units, order, rounds


PHASES = ("submit", "end", "fake", "vm")


def is_phase(row):
    return row.rsplit("/", 1)[-1] in PHASES


def cell(med, vs):
    return f"{med:g} [{min(vs)}-{max(vs)}]"


def profile(values, order):
    """The lines below the table: per profiled row, library share and ceiling"""
    out = []
    for row in (r[:-len("/submit")] for r in order if r.endswith("/submit")):
        ph = {m: [values[m].get(f"{row}/{x}") for x in PHASES] for m in MODES}
        if any(v is None or len(v) != len(ph[m][0]) for m in MODES for v in ph[m]):
            out.append(f"{row}: incomplete profile")
            continue
        lib = {m: [s + e for s, e in zip(ph[m][0], ph[m][1])] for m in MODES}
        shared = [f + v for f, v in zip(ph["baseline"][2], ph["baseline"][3])]
        pm, bm = statistics.median(lib["patched"]), statistics.median(lib["baseline"])
        ceiling = statistics.median([(lb + sh) / sh
                                     for lb, sh in zip(lib["baseline"], shared) if sh])
        out.append(f"{row}: library {cell(pm, lib['patched'])} ns/slice against "
                   f"{cell(bm, lib['baseline'])}, "
                   f"{(f'{bm / pm:.2f}' if pm else '-')} "
                   f"({verdict(lib['patched'], lib['baseline'], False)}); "
                   f"shared fake+vm {statistics.median(shared):g} ns/slice; "
                   f"a library costing nothing: {ceiling:.2f}x upstream at most")
    return out


def verdict(p, b, higher):
    if min(p) > max(b):
        return "ahead" if higher else "behind"
    if max(p) < min(b):
        return "behind" if higher else "ahead"
    return "even"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-table.py DIR")
    d = Path(sys.argv[1])
    values, units, order, rounds = read_rounds(d)
    if not order:
        sys.exit(f"bench-table.py: no benchmark figures in {d}/round-*.log")
    print(f"rounds: {rounds['patched']} patched, {rounds['baseline']} baseline, "
          "interleaved; median [min-max]; speed-up: above 1 is the patched tree faster")
    print(f"{'row':34} {'patched':>22} {'baseline':>22} {'speed-up':>8}  verdict  unit")
    counts = {"ahead": 0, "behind": 0, "even": 0, "incomplete": 0}
    for row in order:
        p, b = values["patched"].get(row), values["baseline"].get(row)
        if (not p or not b or len(p) != rounds["patched"]
                or len(b) != rounds["baseline"]):
            counts["incomplete"] += 1
            print(f"{row:34} incomplete: {len(p or [])} patched and "
                  f"{len(b or [])} baseline figures in {rounds['patched']} + "
                  f"{rounds['baseline']} rounds")
            continue
        higher = units[row] == "MiB/s"
        pm, bm = statistics.median(p), statistics.median(b)
        up = f"{(pm / bm if higher else bm / pm):.2f}" if pm and bm else "-"
        if is_phase(row):
            v = "info"
        else:
            v = verdict(p, b, higher)
            counts[v] += 1
        print(f"{row:34} {cell(pm, p):>22} {cell(bm, b):>22} {up:>8}  {v:7}  {units[row]}")
    print(f"{counts['ahead']} ahead, {counts['behind']} behind, {counts['even']} even"
          + (f", {counts['incomplete']} incomplete" if counts["incomplete"] else ""))
    lines = profile(values, order)
    if lines:
        print("where an inline slice's time goes (VERBOSE=1): patched against baseline")
        for line in lines:
            print("  " + line)


if __name__ == "__main__":
    main()
