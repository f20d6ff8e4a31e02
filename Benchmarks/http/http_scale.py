#!/usr/bin/python3
"""The HTTP API at scale: many SSE clients on one store, and a large list streamed.

Usage:
  http_scale.py BIN_DIR fanout [CLIENTS] [ROWS] [EDITS]   (default 1000 clients, 10000 rows, 30 edits)
  http_scale.py BIN_DIR list [ROWS]                       (default 1000000 rows)

fanout: starts BIN_DIR/booksd (http_listen on a free loopback port, max_clients and
http_client_connections raised to CLIENTS + 16), opens CLIENTS SSE connections to
/v1/stores/default/changes from this process (one epoll loop), then appends EDITS rows one at a
time; each edit's latency is from the return of close() after the append to the arrival of its
event at the LAST client (and at the first); an arrival is the time epoll returned the batch that
held it (not when this one Python thread got round to reading it). Also booksd's VmRSS before and after the clients
connected (KiB per client).

list: one booksd on a fresh file of ROWS rows; GET …/books pages of 10000 (limit's maximum) over
one keep-alive connection until next is null: time and booksd VmHWM; then a fresh booksd and
`booksctl list` of the same file: time and VmHWM. Prints one line per measurement.
"""
import json, os, resource, select, socket, subprocess, sys, tempfile, time

bin_dir, mode = sys.argv[1], sys.argv[2]
resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def start(rows, settings=()):
    tmp = tempfile.mkdtemp(prefix="http-scale-", dir="/var/tmp")
    path = os.path.join(tmp, "books.txt")
    with open(path, "w") as f:
        for i in range(rows):
            f.write(f"id-{i}|Name {i}|Author {i % 97}\n")
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    sock = os.path.join(tmp, "booksd.sock")
    args = [f"{bin_dir}/booksd", "--file", path, "--socket", sock, "--state-directory", "none",
            "--set", f"http_listen=127.0.0.1:{port}"]
    for setting in settings: args += ["--set", setting]
    daemon = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1200):
        try:
            socket.create_connection(("127.0.0.1", port)).close(); break
        except OSError:
            time.sleep(0.05)
    return daemon, path, sock, port


def fanout(clients=1000, rows=10000, edits=30):
    daemon, path, _, port = start(rows, [f"max_clients={clients + 16}", f"http_client_connections={clients + 16}"])
    try:
        time.sleep(0.5)
        before = status_kib(daemon.pid, "VmRSS")
        poller = select.epoll()
        conns = {}
        request = (f"GET /v1/stores/default/changes HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   "Accept: text/event-stream\r\n\r\n").encode()
        for _ in range(clients):
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(request)
            c.setblocking(False)
            conns[c.fileno()] = [c, b"", set()]
            poller.register(c.fileno(), select.EPOLLIN)
        # Every client got its head and first comment.
        deadline = time.monotonic() + 60
        ready = set()
        while len(ready) < clients and time.monotonic() < deadline:
            for fd, _ in poller.poll(0.5):
                data = conns[fd][0].recv(65536)
                conns[fd][1] += data
                if b": booksd change feed" in conns[fd][1]: ready.add(fd); conns[fd][1] = b""
        time.sleep(1.0)
        after = status_kib(daemon.pid, "VmRSS")
        print(f"clients {len(ready)}/{clients} ready; booksd VmRSS {before} -> {after} KiB: "
              f"{(after - before) / max(1, len(ready)):.1f} KiB per client")
        last, first = [], []
        for i in range(1, edits + 1):
            fd_file = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.write(fd_file, f"new-{i}|Appended {i}|Bench\n".encode())
            os.close(fd_file)
            edited = time.monotonic()
            seen = 0
            first_at = None
            marker = f'"name":"Appended {i}"'.encode()
            done = edited
            while seen < len(ready) and time.monotonic() < edited + 30:
                batch = poller.poll(0.5, 4096)
                polled = time.monotonic()  # the data of every socket in the batch was there by now
                for fd, _ in batch:
                    entry = conns[fd]
                    try:
                        data = entry[0].recv(65536)
                    except BlockingIOError:
                        continue
                    entry[1] += data
                    if marker in entry[1] and i not in entry[2]:
                        entry[2].add(i); seen += 1; entry[1] = b""; done = polled
                        if first_at is None: first_at = polled
            if seen == len(ready):
                last.append((done - edited) * 1000); first.append((first_at - edited) * 1000)
            time.sleep(0.05)
        for name, values in (("first client", first), ("last client", last)):
            values.sort()
            if not values: print(name, "no complete round"); continue
            p = lambda q: values[min(len(values) - 1, int(q * len(values)))]
            print(f"{name}: n={len(values)} p50={p(0.5):.2f} ms p99={p(0.99):.2f} ms max={values[-1]:.2f} ms")
        print(f"rounds where every client got the change: {len(last)}/{edits}")
    finally:
        daemon.terminate(); daemon.wait()


def list_books(rows):
    daemon, path, sock, port = start(rows)
    try:
        time.sleep(0.5)
        loaded = status_kib(daemon.pid, "VmHWM")
        c = socket.create_connection(("127.0.0.1", port))
        reader = c.makefile("rb")
        after, books, pages, began = "", 0, 0, time.monotonic()
        while True:
            c.sendall(f"GET /v1/stores/default/books?limit=10000&after={after} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            status = reader.readline()
            chunked, length = False, None
            while True:
                line = reader.readline()
                if line in (b"\r\n", b""): break
                name, _, value = line.decode().partition(":")
                if name.lower() == "transfer-encoding" and "chunked" in value: chunked = True
                if name.lower() == "content-length": length = int(value)
            body = b""
            if chunked:
                while True:
                    size = int(reader.readline().strip(), 16)
                    if size == 0: reader.readline(); break
                    body += reader.read(size); reader.readline()
            else:
                body = reader.read(length)
            page = json.loads(body)
            books += len(page["books"]); pages += 1
            if page["next"] is None: break
            after = page["next"]
        took = time.monotonic() - began
        print(f"HTTP GET …/books: {books} books in {pages} pages, {took:.2f} s; booksd VmHWM "
              f"{loaded} KiB loaded -> {status_kib(daemon.pid, 'VmHWM')} KiB")
    finally:
        daemon.terminate(); daemon.wait()
    daemon, path, sock, port = start(rows)
    try:
        time.sleep(0.5)
        loaded = status_kib(daemon.pid, "VmHWM")
        began = time.monotonic()
        out = subprocess.run([f"{bin_dir}/booksctl", "--socket", sock, "list", "--json"], stdout=subprocess.PIPE)
        took = time.monotonic() - began
        print(f"booksctl list --json: {len(out.stdout)} bytes, {took:.2f} s; booksd VmHWM "
              f"{loaded} KiB loaded -> {status_kib(daemon.pid, 'VmHWM')} KiB")
    finally:
        daemon.terminate(); daemon.wait()


if mode == "fanout":
    fanout(*(int(a) for a in sys.argv[3:6]) if len(sys.argv) > 3 else (1000, 10000, 30))
elif mode == "list":
    list_books(int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000)
else:
    sys.exit(__doc__)
