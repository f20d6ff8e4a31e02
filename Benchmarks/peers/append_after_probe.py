#!/usr/bin/env python3
"""Append latency at 1M rows after different preceding edits, and booksd CPU per timed append.

Usage: Benchmarks/peers/append_after_probe.py BIN_DIR [ROUNDS]  (BIN_DIR holds booksd and booksctl)."""
import os, subprocess, sys, time, uuid, random, statistics, select, json
BIN = sys.argv[1]; PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
D = "/tmp/books-append-probe"; os.makedirs(D, exist_ok=True)
F = D + "/books.txt"; S = D + "/s.sock"
rnd = random.Random(1)
def row(): return f"{uuid.UUID(int=rnd.getrandbits(128))}|Title {rnd.random():.12f}|Author {rnd.randrange(10**6)}\n".encode()
if not os.path.exists(D + "/seed.txt"):
    with open(D + "/seed.txt", "wb") as f: f.write(b"".join(row() for _ in range(1_000_000)))
data = open(D + "/seed.txt", "rb").read()
with open(F, "wb") as f: f.write(data)
for p in (S,):
    if os.path.exists(p): os.unlink(p)
d = subprocess.Popen([BIN + "/booksd", "--file", F, "--socket", S, "--log-level", "error"])
while not os.path.exists(S): time.sleep(0.05)
sub = subprocess.Popen([BIN + "/booksctl", "--socket", S, "subscribe", "--json"], stdout=subprocess.PIPE)
fd = sub.stdout.fileno(); os.set_blocking(fd, False); buf = b""
def wait_for(token, t0):
    global buf
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if token in line: return (time.monotonic_ns() - t0) / 1e6
        select.select([fd], [], [], 30)
        try: buf += os.read(fd, 1 << 20)
        except BlockingIOError: pass
def cpu():
    tot = 0
    for t in os.listdir(f"/proc/{d.pid}/task"):
        tot += int(open(f"/proc/{d.pid}/task/{t}/schedstat").read().split()[0])
    return tot / 1e6
time.sleep(3)
content = bytearray(data)
def append():
    r = row(); content.extend(r)
    fdw = os.open(F, os.O_WRONLY | os.O_APPEND); os.write(fdw, r); os.close(fdw)
    return r[:36]
def sed():
    i = content.index(b"\n", rnd.randrange(len(content) - 200)) + 1
    rid = content[i:i+36].decode(); name = f"Sed {rnd.randrange(10**9)}"
    subprocess.run(["sed", "-i", f"s/^{rid}|[^|]*|/{rid}|{name}|/", F], check=True)
    j = content.index(b"\n", i); old = content[i:j]; parts = old.split(b"|")
    content[i:j] = b"|".join([parts[0], name.encode(), parts[2]])
    return name.encode()
def rewrite(chunk):
    i = content.index(b"\n", rnd.randrange(len(content) - 200)) + 1
    j = content.index(b"\n", i); parts = bytes(content[i:j]).split(b"|"); name = f"RW {rnd.randrange(10**9)}".encode()
    content[i:j] = b"|".join([parts[0], name, parts[2]])
    fdw = os.open(F, os.O_WRONLY | os.O_TRUNC); mv = memoryview(content)
    for k in range(0, len(content), chunk): os.write(fdw, mv[k:k+chunk])
    os.close(fdw); return name
def replace():
    i = content.index(b"\n", rnd.randrange(len(content) - 200)) + 1
    j = content.index(b"\n", i); parts = bytes(content[i:j]).split(b"|"); name = f"RP {rnd.randrange(10**9)}".encode()
    content[i:j] = b"|".join([parts[0], name, parts[2]])
    with open(F + ".tmp", "wb") as f: f.write(content)
    os.rename(F + ".tmp", F); return name
cases = {
  "append after append": lambda: wait_for(append(), time.monotonic_ns()),
  "append after sed -i": lambda: wait_for(sed(), time.monotonic_ns()),
  "append after in-place rewrite (1 write)": lambda: wait_for(rewrite(1 << 30), time.monotonic_ns()),
  "append after in-place rewrite (4 KiB writes)": lambda: wait_for(rewrite(4096), time.monotonic_ns()),
  "append after atomic replace (1 write)": lambda: wait_for(replace(), time.monotonic_ns()),
}
res = {k: ([], []) for k in cases}
for p in range(PAIRS):
    for k, prep in cases.items():
        prep(); time.sleep(0.3)
        c0 = cpu(); t0 = time.monotonic_ns(); rid = append(); t0 = time.monotonic_ns()
        ms = wait_for(rid, t0); time.sleep(0.3); c1 = cpu()
        res[k][0].append(ms); res[k][1].append(c1 - c0)
for k, (lat, c) in res.items():
    print(f"| {k} | {statistics.median(lat):.2f} | {max(lat):.2f} | {statistics.median(c):.2f} |")
sub.kill(); d.terminate(); d.wait()
