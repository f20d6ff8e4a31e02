#!/usr/bin/env python3
"""booksd CPU, minor faults and latency of the first change after a fresh start vs the next ones.

Usage: Benchmarks/peers/first_change_probe.py BIN_DIR  (BIN_DIR holds booksd and booksctl; 3 fresh daemons)."""
import os, subprocess, time, select, sys
BIN=sys.argv[1]; D="/tmp/books-first-change-probe"; os.makedirs(D, exist_ok=True); F=D+"/books.txt"; S=D+"/s.sock"
def cpu(pid):
    return sum(int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0]) for t in os.listdir(f"/proc/{pid}/task"))/1e6
def minflt(pid): return int(open(f"/proc/{pid}/stat").read().rsplit(")",1)[1].split()[7])
for r in range(3):
    with open(F,"w") as f: f.write("".join(f"{i:08d}-0000-0000-0000-{r:012d}|Book {i}|Author {i%97}\n" for i in range(10000)))
    if os.path.exists(S): os.unlink(S)
    d=subprocess.Popen([BIN+"/booksd","--file",F,"--socket",S,"--log-level","error"])
    while not os.path.exists(S): time.sleep(0.02)
    sub=subprocess.Popen([BIN+"/booksctl","--socket",S,"subscribe","--json"],stdout=subprocess.PIPE); fd=sub.stdout.fileno()
    time.sleep(1.5); out=[]
    for k in range(4):
        c0=cpu(d.pid); m0=minflt(d.pid)
        w=os.open(F,os.O_WRONLY|os.O_APPEND); os.write(w,f"{k:08d}-1111-0000-0000-{r:012d}|Cold {k}|X\n".encode()); os.close(w); t0=time.monotonic()
        buf=b""
        while f"Cold {k}".encode() not in buf:
            select.select([fd],[],[],10); buf+=os.read(fd,1<<16)
        lat=(time.monotonic()-t0)*1e3; time.sleep(0.3)
        out.append(f"{'first' if k==0 else 'later'}: {lat:.2f} ms, cpu {cpu(d.pid)-c0:.2f} ms, minflt {minflt(d.pid)-m0}")
    print(f"round {r}: " + " | ".join(out))
    sub.kill(); d.terminate(); d.wait()
