import BooksClient

/// `edit` as a type: its grammar and help, how it is read from the command line, how it runs.
extension EditCommand: ValuelessCommand {
    static let spec = CommandSpec(
        name: "edit", summary: "edit the books in $VISUAL/$EDITOR and save them, merged with others' writes",
        positionals: [], options: [],
        details: [
            """
            Like crontab -e: writes the store's books as id|name|author rows to a new private temporary file \
            ($TMPDIR, default /tmp; mode 0600), runs $VISUAL, else $EDITOR, else vi on it, and when the editor \
            exits 0 saves what changed: edited rows are updated, removed rows deleted, name|author rows added. \
            Comments, blank lines and the order of rows are not saved. An unchanged file writes nothing.
            """,
            """
            The save names its base (the version the editor got), and booksd merges it onto others' writes \
            meanwhile, like a save from a stale vim buffer: a book that others changed is merged field by field \
            (a field only one side changed takes that side's value; others' new books and books you did not \
            touch are kept). Where you and others changed the same field differently your value is written and \
            the others' value is kept as a conflict: printed on stderr with the command that puts it back \
            (booksctl resolve N --take theirs), listed by booksctl conflicts (exit 6). A book you deleted that \
            others changed is kept with their values.
            """,
            """
            Nothing is written, and the temporary file is kept and its path printed, when the editor exits \
            non-zero (vim: :cq), the edited file has lines that are not books or an id no book has, or the save \
            fails (daemon down: exit 3; booksd no longer keeps history back to the base: run it again).
            """,
        ],
        examples: [
            ("booksctl edit", "edit the books in $EDITOR"),
            ("EDITOR=nano booksctl edit --store to-read", "edit the store to-read with nano"),
        ],
        exitNotes: [
            "1  the editor failed, the edited file is not valid, or the daemon refused the save (file kept)",
            "3  cannot connect to booksd (at the start: no file made; at the save: file kept)",
            "6  saved, but a field you changed was also changed by others (their values kept: booksctl conflicts)",
        ])
}
