#!/usr/bin/env python3
"""Python 3 peer for `BooksBenchmarks core`: the natural way to load books.txt into a dict.

    parse_peer.py FILE --runs N [--warm]
                                  timed: prints parse_ms_median (bytes already in memory, decode +
                                  split + dict), read_parse_ms_median (open + read + parse), books;
                                  --warm first parses once untimed, so the timed runs reuse a heap
                                  already grown (as in a long-running process; the benchmark pairs
                                  each Swift run with one `--runs 1 --warm` peer process)
    parse_peer.py FILE --rss      one load+parse in a fresh process; prints hwm_kb (peak RSS)

Output is key=value lines. Rows are `bookId|name|author`; comments/blank lines are skipped.
"""
import gc
import statistics
import sys
import time


def parse_text(text):
    return {
        book_id: (name, author)
        for book_id, name, author in (
            line.split("|", 2) for line in text.splitlines() if line and not line.startswith("#")
        )
    }


def load(path):
    with open(path, encoding="utf-8") as f:
        return {
            book_id: (name, author)
            for book_id, name, author in (
                line.rstrip("\n").split("|", 2) for line in f if line.strip() and not line.startswith("#")
            )
        }


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "--rss":
        books = load(path)
        print(f"books={len(books)}")
        print(f"hwm_kb={status_kb('VmHWM')}")
        print(f"rss_kb={status_kb('VmRSS')}")
        return
    runs = int(sys.argv[3])
    with open(path, "rb") as f:
        data = f.read()
    if "--warm" in sys.argv[4:]:
        books = parse_text(data.decode("utf-8"))
        books = load(path)
    parse, read_parse, parse_cpu = [], [], []
    books = None
    for _ in range(runs):
        books = None
        gc.collect()
        start, cpu = time.perf_counter_ns(), time.process_time_ns()
        books = parse_text(data.decode("utf-8"))
        parse.append((time.perf_counter_ns() - start) / 1e6)
        parse_cpu.append((time.process_time_ns() - cpu) / 1e6)
    for _ in range(runs):
        books = None
        gc.collect()
        start = time.perf_counter_ns()
        books = load(path)
        read_parse.append((time.perf_counter_ns() - start) / 1e6)
    print(f"books={len(books)}")
    print(f"parse_ms_median={statistics.median(parse):.3f}")
    print(f"parse_cpu_ms_median={statistics.median(parse_cpu):.3f}")
    print(f"read_parse_ms_median={statistics.median(read_parse):.3f}")


if __name__ == "__main__":
    main()
