"""Peer subscriber on the `watchdog` package: watches the directory of books.txt, and on
close-write or moved-to of books.txt re-reads the file, diffs by id (bookdiff.py) and prints
one JSON line per changed book. Events arriving during a re-read are coalesced into one more
re-read. Prints {"ready":true} once the file is loaded and the watch is established.

    python3 watchdog_peer.py PATH/books.txt
"""
import os
import sys
import threading

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bookdiff  # noqa: E402


class Handler(FileSystemEventHandler):
    def __init__(self, path, wake):
        self.path = path
        self.wake = wake

    def on_closed(self, event):          # IN_CLOSE_WRITE (watchdog ≥ 2.1)
        if os.path.abspath(event.src_path) == self.path:
            self.wake.set()

    def on_moved(self, event):           # IN_MOVED_TO of the rename target
        if os.path.abspath(getattr(event, "dest_path", "")) == self.path:
            self.wake.set()


def main():
    path = os.path.abspath(sys.argv[1])
    wake = threading.Event()
    state = bookdiff.load(path)
    emitter = bookdiff.Emitter()
    observer = Observer()
    observer.schedule(Handler(path, wake), os.path.dirname(path), recursive=False)
    observer.start()
    sys.stdout.write('{"ready":true}\n')
    sys.stdout.flush()
    try:
        while True:
            wake.wait()
            wake.clear()
            new = bookdiff.load(path)
            emitter.emit(bookdiff.diff(state, new))
            state = new
    except KeyboardInterrupt:
        pass
    finally:
        observer.stop()


if __name__ == "__main__":
    main()
