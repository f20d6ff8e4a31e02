"""Draws the live benchmark plots from Benchmarks/work/results/*.tsv (written by BooksBenchmarks).

    python3 Benchmarks/plot_results.py RESULTS_DIR OUT_DIR

latency-<rows>.png: latency distribution (box: quartiles, whiskers: 5th-95th percentile, dots: all
samples) per edit kind and peer, log scale; fanout.png: last-subscriber latency and deliveries
per second against the number of subscribers.
"""
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEERS = ["inotifywait", "booksd", "watchdog", "watchman"]
COLORS = {"inotifywait": "#999999", "booksd": "#1f77b4", "watchdog": "#d62728", "watchman": "#ff7f0e"}
EDITS = ["append", "rewrite", "replace", "sed"]


def read(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def rows_label(n):
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def latency_plots(results, out):
    samples = read(os.path.join(results, "latency-samples.tsv"))
    sizes = sorted({int(r["rows"]) for r in samples})
    for rows in sizes:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        positions, data, colors, ticks, labels = [], [], [], [], []
        x = 0
        for edit in EDITS:
            start = x
            for peer in PEERS:
                values = [float(r["ms"]) for r in samples
                          if int(r["rows"]) == rows and r["edit"] == edit and r["peer"] == peer]
                if values:
                    positions.append(x)
                    data.append(values)
                    colors.append(COLORS[peer])
                x += 1
            ticks.append((start + x - 1) / 2)
            labels.append(edit)
            x += 1
        if not data:
            plt.close(fig)
            continue
        box = ax.boxplot(data, positions=positions, widths=0.7, whis=(5, 95), showfliers=False,
                         patch_artist=True)
        for patch, color in zip(box["boxes"], colors):
            patch.set_facecolor(color)
            patch.set_alpha(0.5)
        for pos, values, color in zip(positions, data, colors):
            ax.scatter([pos] * len(values), values, s=6, color=color, alpha=0.7, zorder=3)
        ax.set_yscale("log")
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels)
        ax.set_ylabel("edit → subscriber line (ms, log)")
        ax.set_title(f"Edit-to-subscriber latency, {rows_label(rows)} rows")
        handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS[p], alpha=0.5) for p in PEERS]
        ax.legend(handles, PEERS, loc="upper left", fontsize=8)
        ax.grid(axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"latency-{rows_label(rows)}.png"), dpi=100)
        plt.close(fig)


def fanout_plot(results, out):
    rows = read(os.path.join(results, "fanout.tsv"))
    if not rows:
        return
    n = [int(r["subscribers"]) for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(n, [float(r["last_p50"]) for r in rows], "o-", label="last subscriber p50")
    left.plot(n, [float(r["first_p50"]) for r in rows], "s--", label="first subscriber p50")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("subscribers")
    left.set_ylabel("file append → change read (ms)")
    left.legend(fontsize=8)
    left.grid(which="both", alpha=0.3)
    right.plot(n, [float(r["deliveries_per_s"]) for r in rows], "o-", label="deliveries/s (burst)")
    right.plot(n, [float(r["changes_per_s"]) for r in rows], "s--", label="changes/s (burst)")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("subscribers")
    right.set_ylabel("per second")
    right.legend(fontsize=8)
    right.grid(which="both", alpha=0.3)
    fig.suptitle("booksd fan-out: throughput and latency vs subscribers")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fanout.png"), dpi=100)
    plt.close(fig)


def main():
    results, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    latency_plots(results, out)
    fanout_plot(results, out)
    print(f"plots in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
