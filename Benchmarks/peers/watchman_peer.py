"""Peer subscriber on watchman: starts a private watchman server (own state dir and socket),
subscribes to books.txt in its directory, and on each subscription notification re-reads the
file, diffs by id (bookdiff.py) and prints one JSON line per changed book. Uses pywatchman when
importable, else `watchman -j -p` (the CLI's persistent JSON mode). Prints {"ready":true} once
subscribed. The server is stopped on exit.

    python3 watchman_peer.py PATH/books.txt STATE_DIR
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bookdiff  # noqa: E402


def start_server(state_dir):
    os.makedirs(state_dir, exist_ok=True)
    sock = os.path.join(state_dir, "sock")
    server = subprocess.Popen(
        ["watchman", "--foreground", "--sockname=" + sock, "--statefile=" + os.path.join(state_dir, "state"),
         "--logfile=" + os.path.join(state_dir, "log"), "--pidfile=" + os.path.join(state_dir, "pid"),
         "--no-save-state"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(sock):
            break
        time.sleep(0.01)
    return server, sock


SUBSCRIPTION = {"expression": ["name", "books.txt"], "fields": ["name"]}


def run_pywatchman(sock, root, on_change):
    import pywatchman
    client = pywatchman.client(sockpath=sock, timeout=None, sendEncoding="json", recvEncoding="json")
    client.query("watch", root)
    client.query("subscribe", root, "bench", SUBSCRIPTION)
    ready()
    while True:
        client.receive()
        pdus = client.getSubscription("bench", root=root) or []
        if any(not pdu.get("is_fresh_instance") for pdu in pdus):
            on_change()


def run_cli(sock, root, on_change):
    subprocess.run(["watchman", "--sockname=" + sock, "--no-spawn", "watch", root],
                   stdout=subprocess.DEVNULL, check=True)
    cli = subprocess.Popen(["watchman", "--sockname=" + sock, "--no-spawn", "--no-pretty", "-j", "-p"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    cli.stdin.write(json.dumps(["subscribe", root, "bench", SUBSCRIPTION]) + "\n")
    cli.stdin.flush()
    first = True
    for line in cli.stdout:
        message = json.loads(line)
        if "subscribe" in message and "files" not in message:
            ready()
            continue
        if message.get("subscription") == "bench":
            if first and message.get("is_fresh_instance"):
                first = False
                continue
            on_change()


def ready():
    sys.stdout.write('{"ready":true}\n')
    sys.stdout.flush()


def main():
    path = os.path.abspath(sys.argv[1])
    server, sock = start_server(os.path.abspath(sys.argv[2]))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    state = {"books": bookdiff.load(path)}
    emitter = bookdiff.Emitter()

    def on_change():
        new = bookdiff.load(path)
        emitter.emit(bookdiff.diff(state["books"], new))
        state["books"] = new

    try:
        try:
            import pywatchman  # noqa: F401
            run = run_pywatchman
        except ImportError:
            run = run_cli
        run(sock, os.path.dirname(path), on_change)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
