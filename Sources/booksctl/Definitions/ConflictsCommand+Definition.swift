import BooksClient

/// `conflicts` as a type: its grammar and help, how it is read from the command line, how it runs.
extension ConflictsCommand: JSONOnlyCommand {
    static let spec = CommandSpec(
        name: "conflicts", summary: "list the conflicts of merged saves, not yet settled",
        positionals: [], options: [.json],
        details: [
            """
            When a save from a stale editor buffer is merged and the saver and others changed the same field of a \
            book differently (or one deleted a book the other changed), the saver's value stands in the file and \
            the other side is kept as a conflict until it is settled with booksctl resolve. Conflicts survive a \
            daemon restart.
            """,
            """
            One row per conflict: its number, the book's id, the field (name, author, or book when one side \
            deleted it), the saver's value (MINE), the others' value (THEIRS), who saved (as the editor's lock \
            names them) and when. Exit 0 also when there are none. --json prints one object per conflict per \
            line: {"conflict","id","field","kind","mine","theirs","who","time","seq","baseSeq"} ("mine" or \
            "theirs" null for a deleted side; "seq" is the change set that merged the save, "baseSeq" the version \
            the buffer was loaded from; "store" with --store).
            """,
        ],
        examples: [
            ("booksctl conflicts", "what a merged save left unsettled"),
            ("booksctl conflicts --json | jq .theirs", "the others' values"),
        ])
}
