/// The grammar and help of `conflicts` and `resolve`: the kept conflicts of merged saves.
extension CommandCatalog {
    static let conflicts = CommandSpec(
        name: "conflicts", summary: "list the conflicts of merged saves, not yet settled",
        positionals: [], options: [json],
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

    static let resolve = CommandSpec(
        name: "resolve", summary: "settle a conflict of a merged save",
        positionals: [("ID", "the conflict's number, or the id (or a unique prefix) of a book with one conflict")],
        options: [
            json,
            .value(
                "take", "SIDE",
                "mine: the saver's value (in the file) stands; theirs: write the others' value into the file"),
        ],
        details: [
            """
            --take theirs writes the others' value into the file like any client write (a new change set, seen by \
            every subscriber); --take mine leaves the file as it is. Either way the conflict is no longer kept. \
            An ID that names no unsettled conflict exits 5 with a message saying so; a book with several \
            conflicts needs the conflict's number.
            """
        ],
        examples: [
            ("booksctl resolve 3 --take theirs", "put the others' value back into the file"),
            ("booksctl resolve 9f2c --take mine", "keep the saver's value of book 9f2c…"),
        ],
        exitNotes: ["5  no unsettled conflict has this ID"])
}
