#!/usr/bin/python3
"""Hand edit -> SSE client latency beside the socket subscriber (booksctl subscribe --json).

Usage: sse_latency.py BIN_DIR [ROWS] [EDITS]

Starts BIN_DIR/booksd on a fresh file of ROWS books (default 10000) with http_listen on a free
loopback port, one SSE client (a raw socket in this process) and one `booksctl subscribe --json`,
then appends EDITS rows (default 200) one at a time, each after both saw the previous one.
Latency = from the return of close() after the append to the arrival of the matching event,
both on time.monotonic() in this process (each reader is its own thread). Prints p50/p99 per path.
"""
import json, os, socket, subprocess, sys, tempfile, threading, time

bin_dir = sys.argv[1]
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
edits = int(sys.argv[3]) if len(sys.argv) > 3 else 200
tmp = tempfile.mkdtemp(prefix="sse-bench-", dir="/var/tmp")
path = os.path.join(tmp, "books.txt")
with open(path, "w") as f:
    for i in range(rows):
        f.write(f"id-{i}|Name {i}|Author {i % 97}\n")
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
sock = os.path.join(tmp, "booksd.sock")
daemon = subprocess.Popen([f"{bin_dir}/booksd", "--file", path, "--socket", sock, "--state-directory", "none",
                           "--set", f"http_listen=127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
arrived = {"sse": {}, "socket": {}}
try:
    for _ in range(200):
        try:
            c = socket.create_connection(("127.0.0.1", port)); break
        except OSError:
            time.sleep(0.05)
    c.sendall(f"GET /v1/stores/default/changes HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())

    def sse_reader():
        buffer = b""
        while True:
            data = c.recv(65536)
            if not data: return
            now = time.monotonic()
            buffer += data
            while b"\nevent: change\ndata: " in buffer:
                start = buffer.index(b"\nevent: change\ndata: ") + len(b"\nevent: change\ndata: ")
                end = buffer.find(b"\n", start)
                if end < 0: break
                event = json.loads(buffer[start:end])
                arrived["sse"][event["seq"]] = now
                buffer = buffer[end:]

    ctl = subprocess.Popen([f"{bin_dir}/booksctl", "--socket", sock, "subscribe", "--json"], stdout=subprocess.PIPE)

    def socket_reader():
        for line in ctl.stdout:
            now = time.monotonic()
            event = json.loads(line)
            if event.get("event", "change") == "change" and "seq" in event:
                arrived["socket"][event["seq"]] = now

    for reader in (sse_reader, socket_reader):
        threading.Thread(target=reader, daemon=True).start()
    time.sleep(1.0)
    latencies = {"sse": [], "socket": []}
    for i in range(1, edits + 1):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, f"new-{i}|Appended {i}|Bench\n".encode())
        os.close(fd)
        edited = time.monotonic()
        deadline = edited + 10
        while (i not in arrived["sse"] or i not in arrived["socket"]) and time.monotonic() < deadline:
            time.sleep(0.0002)
        for kind in latencies:
            if i in arrived[kind]: latencies[kind].append((arrived[kind][i] - edited) * 1000)
        time.sleep(0.02)
    for kind, values in latencies.items():
        values.sort()
        if not values: print(kind, "no events"); continue
        p = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        print(f"{kind:7s} n={len(values)} p50={p(0.5):.2f} ms p99={p(0.99):.2f} ms")
    ctl.terminate()
finally:
    daemon.terminate(); daemon.wait()
