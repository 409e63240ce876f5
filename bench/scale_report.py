"""The report of bench/scale: Markdown tables on stdout, the targets' verdict, and a plot.

Reads the raw rows bench/scale wrote (see its head) and prints medians per contender and node count:
wall time, time / (S / R) (1.0: the whole source through one link at its rate; the physical limit of
a node that must receive every byte), and the bytes the links carried. Exit status 1 if a target of
issue 16 is missed.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

KINDS = {  # kind: (label, which size S is: the tree's or the tarball's)
    "yeet_tree": ("yeet, tree", "tree"),
    "yeet_tar": ("yeet, tarball (--unpack)", "tar"),
    "yeet_bcast": ("yeet --route bcast, tree", "tree"),
    "shared_fs": ("shared FS, all nodes at once", "tar"),
}
UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}


def rate_bytes_per_second(rate):
    """tc's rate ("100mbit": SI prefixes, bits per second) in bytes per second."""
    match = re.fullmatch(r"([0-9.]+)([kmg]?)bit", rate.lower())
    if not match:
        sys.exit(f"bench/scale: cannot read the rate {rate!r} (expected e.g. 100mbit)")
    return float(match.group(1)) * UNITS[match.group(2)] / 8


def read_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            kind, n, rep, t_result, t_exit, links, own = line.rstrip("\n").split("\t")
            traffic = {}
            for item in links.split():
                host, rx, tx = item.split(":")
                traffic[host] = (int(rx), int(tx))
            rows.append(dict(kind=kind, n=int(n), rep=int(rep), t=float(t_result), t_exit=float(t_exit),
                             traffic=traffic, own=None if own == "-" else float(own)))
    return rows


def receivers(kind, n):
    # yeet: n0 holds rank 0, which reads the source; the others receive. shared FS: all n receive.
    first = 1 if kind.startswith("yeet") else 0
    return [f"n{i}" for i in range(first, n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--launch", required=True)
    ap.add_argument("--startup", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--tree-bytes", type=int, required=True)
    ap.add_argument("--tar-bytes", type=int, required=True)
    ap.add_argument("--tree-files", type=int, required=True)
    ap.add_argument("--rate", required=True)
    ap.add_argument("--finalize", required=True)
    ap.add_argument("--plot")
    args = ap.parse_args()

    rate = rate_bytes_per_second(args.rate)
    size = {"tree": args.tree_bytes, "tar": args.tar_bytes}
    rows = read_rows(args.results)
    sizes = sorted({r["n"] for r in rows})
    reps = max(r["rep"] for r in rows)
    cell = {}
    for kind in KINDS:
        for n in sizes:
            mine = [r for r in rows if r["kind"] == kind and r["n"] == n]
            if not mine:
                continue
            s = size[KINDS[kind][1]]
            sent = [max(tx for _, tx in r["traffic"].values()) for r in mine]
            got = [statistics.mean(r["traffic"][h][0] for h in receivers(kind, n)) if n > 1 or kind == "shared_fs"
                   else 0 for r in mine]
            times = [r["t"] for r in mine]
            owns = [r["own"] for r in mine if r["own"] is not None]
            cell[kind, n] = dict(t=statistics.median(times), lo=min(times), hi=max(times),
                                 own=statistics.median(owns) if owns else None,
                                 t_exit=statistics.median(r["t_exit"] for r in mine),
                                 ratio=statistics.median(times) / (s / rate),
                                 sent=statistics.median(sent) / s, got=statistics.median(got) / s)

    print(f"Source: {args.tree_files} files, {args.tree_bytes / 2**20:.1f} MiB as a tree "
          f"(S = {args.tree_bytes:,} B), {args.tar_bytes / 2**20:.1f} MiB as a tarball; links {args.rate} "
          f"= {rate / 1e6:.2f} MB/s each way; S/R = {args.tree_bytes / rate:.2f} s (tree), "
          f"{args.tar_bytes / rate:.2f} s (tarball). Medians of {reps} runs (min-max in brackets).\n")
    with open(args.tree) as f:
        print(f.read())
    def per_kind_table(columns, values):
        """A row per node count, two columns per contender: `columns` names them, `values` fills them."""
        print("| nodes | " + " | ".join(f"{KINDS[k][0]}{columns}" for k in KINDS) + " |")
        print("|---:|" + "---:|---:|" * len(KINDS))
        for n in sizes:
            print(f"| {n} | " + " | ".join(values(cell[k, n]) if (k, n) in cell else "- | -" for k in KINDS) + " |")

    per_kind_table(" (s) | x S/R", lambda c: f"{c['t']:.2f} [{c['lo']:.2f}-{c['hi']:.2f}] | {c['ratio']:.2f}")
    print("\nBytes on the links, as multiples of S: what the busiest link sent, and what each receiving node "
          "took in (mean):\n")
    per_kind_table(": busiest sent | each received", lambda c: f"{c['sent']:.2f} | {c['got']:.2f}")
    starts = {}
    with open(args.startup) as f:
        for line in f:
            n, seconds = line.split()
            starts.setdefault(int(n), []).append(float(seconds))
    print("\nWhere yeet's time goes (tree, medians in s): the wall time; the start-up of N ranks (mpiexec of "
          "/bin/true, measured apart); yeet's own time (rank 0, from its start to its copy committed: the "
          "summary's \"written in\"); and the rest (MPI_Init, the last node finishing after rank 0, the "
          "final gather).\n")
    print("| nodes | wall | x S/R | start-up | yeet's own (rank 0) | x S/R | rest |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        c = cell.get(("yeet_tree", n))
        if not c or c["own"] is None:
            continue
        start = statistics.median(starts.get(n, [0.0]))
        print(f"| {n} | {c['t']:.2f} | {c['ratio']:.2f} | {start:.2f} | {c['own']:.2f} | "
              f"{c['own'] / (args.tree_bytes / rate):.2f} | {c['t'] - start - c['own']:.2f} |")
    exits = ", ".join(f"{n}: {cell['yeet_tree', n]['t_exit']:.2f}" for n in sizes if ("yeet_tree", n) in cell)
    deadline = open(args.finalize).read().splitlines() if os.path.exists(args.finalize) else []
    print(f"\nyeet (tree) to the exit of mpiexec, median s by nodes: {exits}. Runs in which MPI_Finalize hung "
          f"and yeet left after its deadline: {len(deadline)} of {len([r for r in rows if r['kind'] != 'shared_fs'])}.")

    # --- launch ---
    launch = []
    with open(args.launch) as f:
        for line in f:
            n, rep, t0, t_exit, ranks = line.rstrip("\n").split("\t")
            t0 = float(t0)
            marks = [[float(x) for x in r.split(",")] for r in ranks.split()]
            start = max(m[0] for m in marks)
            imported = max(m[1] for m in marks)
            joined = max(m[2] for m in marks)
            reduced = max(m[3] for m in marks)
            launch.append(dict(n=int(n), total=reduced - t0, ezpz=start - t0,
                               torch_import=max(m[1] - m[0] for m in marks), rendezvous=joined - imported,
                               allreduce=reduced - joined, exit=float(t_exit) - t0))
    if launch:
        print("\n`ezpz launch` of bench/scale_allreduce.py, medians (s): to the first all-reduce; ezpz's part "
              "(launch line until the last rank runs the program's first line: ezpz, mpiexec and its proxies, "
              "ezpz exec, the Python interpreter's start); torch's import (the slowest rank); the rendezvous "
              "(last import to last rank in the gloo group); the all-reduce; the launch's exit.\n")
        print("| nodes | to first all-reduce | ezpz's part | import torch | rendezvous | all-reduce | exit |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n in sorted({r["n"] for r in launch}):
            mine = [r for r in launch if r["n"] == n]
            med = {k: statistics.median(r[k] for r in mine) for k in mine[0] if k != "n"}
            print(f"| {n} | {med['total']:.2f} | {med['ezpz']:.2f} | {med['torch_import']:.2f} | "
                  f"{med['rendezvous']:.2f} | {med['allreduce']:.3f} | {med['exit']:.2f} |")

    # --- targets ---
    missed = 0
    big = max(n for n in sizes)
    if ("yeet_tree", 2) in cell and big > 2:
        checks = [
            (f"yeet (tree) at N = {big} within 1.5 x N = 2", cell["yeet_tree", big]["t"] / cell["yeet_tree", 2]["t"], 1.5),
            (f"yeet (tree) at N = {big} at most 1.3 x S/R", cell["yeet_tree", big]["ratio"], 1.3),
        ]
        base = cell["shared_fs", big]["t"] / cell["shared_fs", 2]["t"]
        print("\nTargets:\n")
        for what, value, limit in checks:
            ok = value <= limit
            missed += not ok
            print(f"- {what}: {value:.2f} ({'met' if ok else 'MISSED'})")
        linear = base >= 0.8 * big / 2
        missed += not linear
        print(f"- shared FS grows linearly: N = {big} / N = 2 = {base:.2f} (linear: {big / 2:.0f}; "
              f"{'met' if linear else 'MISSED'} at >= 0.8 x that)")

    if args.plot:
        data = args.plot + ".dat"
        with open(data, "w") as f:
            f.write("# nodes " + " ".join(KINDS) + " S/R\n")
            for n in sizes:  # a one-node yeet crosses no link: in the table, not on the plot
                f.write(f"{n} " + " ".join(f"{cell[k, n]['t']:.4f}" if (k, n) in cell and (n > 1 or k == "shared_fs")
                                           else "NaN" for k in KINDS)
                        + f" {args.tree_bytes / rate:.4f}\n")
        script = f"""
set terminal svg size 720,480 dynamic font "sans,12"
set termoption noenhanced
set output "{args.plot}"
set logscale xy 2
set xrange [{min(sizes) * 0.85}:{max(sizes) * 1.2}]
set xlabel "simulated nodes N"
set ylabel "wall time (s)"
set key top left
set grid
set title "yeet vs every node reading a shared FS, {os.path.basename(args.rate)} links, {args.tree_bytes / 2**20:.0f} MiB"
set xtics ({", ".join(str(n) for n in sizes)})
plot "{data}" using 1:2 with linespoints lw 2 title "yeet, tree", \\
     "{data}" using 1:3 with linespoints lw 2 title "yeet, tarball", \\
     "{data}" using 1:4 with linespoints lw 2 title "yeet --route bcast (MPI_Ibcast)", \\
     "{data}" using 1:5 with linespoints lw 2 title "shared FS", \\
     "{data}" using 1:6 with lines dt 2 title "S/R (one link's limit)"
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        os.remove(data)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
