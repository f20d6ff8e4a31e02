"""Re-read-and-diff logic shared by the Python subscriber peers.

A peer keeps {id: (name, author)} for books.txt; on each file event it re-reads the whole file,
diffs by id against the previous state and prints one JSON line per changed book, in the shape
of `booksctl subscribe --json`: {"seq":N,"kind":"insert"|"update"|"delete","id":…,"name":…,
"author":…,"source":"file"}.

    python3 bookdiff.py --diff OLD NEW    prints the change lines between two files (for tests)
"""
import json
import sys


def load(path):
    """{id: (name, author)} of the rows `id|name|author`; malformed lines are skipped."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}
    books = {}
    for line in data.decode("utf-8", "replace").split("\n"):
        parts = line.split("|", 2)
        if len(parts) == 3 and parts[0]:
            books[parts[0]] = (parts[1], parts[2])
    return books


def diff(old, new):
    """[(kind, id, name, author)]: updates and inserts in new's order, then deletes."""
    changes = []
    for book_id, value in new.items():
        before = old.get(book_id)
        if before is None:
            changes.append(("insert", book_id) + value)
        elif before != value:
            changes.append(("update", book_id) + value)
    if len(old) + sum(1 for c in changes if c[0] == "insert") != len(new):
        for book_id, value in old.items():
            if book_id not in new:
                changes.append(("delete", book_id) + value)
    return changes


class Emitter:
    """Prints change lines with increasing seq, flushing once per change set."""

    def __init__(self, out=sys.stdout):
        self.seq = 0
        self.out = out

    def emit(self, changes):
        if not changes:
            return
        lines = []
        for kind, book_id, name, author in changes:
            self.seq += 1
            lines.append(json.dumps({"seq": self.seq, "kind": kind, "id": book_id, "name": name,
                                     "author": author, "source": "file"}, ensure_ascii=False,
                                    separators=(",", ":")))
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--diff":
        Emitter().emit(diff(load(sys.argv[2]), load(sys.argv[3])))
    else:
        sys.exit(__doc__)
