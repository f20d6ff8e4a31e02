import BooksClient

/// `subscribe` as a type: its grammar and help, how it is read from the command line, how it runs.
extension SubscribeCommand: BooksctlCommand {
    static let spec = CommandSpec(
        name: "subscribe", summary: "print every change of the books as it happens",
        positionals: [],
        options: [
            .json, .name, .author,
            .flag("initial", "first print every matching book as an insert (seq of the snapshot); implies --mirror"),
            .flag("mirror", "keep a copy of the matching books, to print missed changes exactly after a resync"),
            .value(
                "since", "WHEN",
                "resume after this cursor (of a --json line); a plain SEQ: after that seq of the current epoch "
                    + "(0: every change still available); or a time: -10m, -2h, -3d, today, "
                    + "yesterday or ISO 8601 (from the first change set at or after it)"),
            .value("cursor-file", "PATH", "resume after the cursor saved in PATH; save each printed change's cursor"),
            .value("count", "N", "exit after N change sets"),
            .flag("once", "exit after one change set (--count 1)"),
            .value("coalesce", "MS", "with --exec: merge the change sets arriving within MS ms into one run"),
            .flag(
                "conflicts",
                "also print a line for each conflict of a merged save as it is recorded and as it is settled "
                    + "(one store; not with --exec)"),
            .rest("exec", "CMD [ARGS…]", "run CMD per change set instead of printing (must come last)"),
        ],
        details: [
            """
            Follows the daemon's change feed until interrupted (Ctrl-C or SIGTERM: exit 0). If the daemon stops, \
            restarts or crashes, booksctl reconnects (100 ms back-off doubling to 2 s) and resumes where it left off: \
            changes made meanwhile are printed once, none is printed twice. booksctl holds no copy of the books: \
            its memory does not grow with the file. When the daemon cannot replay the missed changes (its history \
            was trimmed, or it lost it), one resync line marks the gap. With --mirror (or --initial) booksctl keeps \
            a copy of the matching books instead, and prints the missed changes, computed from a fresh snapshot, \
            with the snapshot's seq.
            """,
            """
            Text output: one line per changed book, coloured when stdout is a terminal and NO_COLOR is unset. \
            Connection notices go to stderr.
            """,
            """
            --json output: exactly one JSON object per changed book per line, written as each change arrives:
              {"seq":N,"kind":"insert"|"update"|"delete",\
            "id":"…","name":"…","author":"…","source":"file"|"client"|"nats"}
            A delete carries the last known name and author; an update the new values, followed by "oldName" and \
            "oldAuthor". "source" is "resync" for changes computed from a snapshot after a reconnect and "snapshot" \
            for --initial lines. Without --mirror, a gap is one line
              {"seq":N,"kind":"resync","epoch":"…","reason":"history-trimmed"|"different-epoch"|…,"source":"resync"}
            after which changes continue from seq N.
            """,
            """
            Cursors: every --json line also carries "epoch" and "time" (ISO 8601, when the daemon applied the \
            change; booksctl's clock for resync and snapshot lines), and "actor" when the daemon said who made \
            the change: {"uid","user","pid","program"} for a client (from the kernel, not the client's word), \
            what a NATS client declared about itself for a NATS write, marked "via":"nats" \
            ({"uid","user","pid","program","host","via":"nats","natsUser"}; {"program":"nats"} when it said \
            nothing), {"uid","user","editor":"unknown"} (the file's owner) or the \
            editor's {"user","host","pid","editor"} for a hand edit. --since EPOCH:SEQ (socket) resumes after that \
            change: the daemon replays what came later; a plain SEQ means that seq of the daemon's current epoch. \
            A time (-10m, today, 2026-12-01T08:30) resumes before the first change set applied at or after it \
            (socket: from the daemon's history kept; --nats: from the stream). --cursor-file PATH does the same with the cursor saved in \
            PATH (none yet: start now) and rewrites PATH atomically (temporary file + rename) after each printed \
            change set, or after each --exec run, so a restarted booksctl goes on where it stopped. A stale \
            cursor (a new epoch, or history trimmed) resyncs: one "kind":"resync" line, then the changes from the \
            daemon's position. Neither works with --mirror or --initial.
            """,
            """
            --exec CMD [ARGS…] runs CMD once per change set, one run at a time, in order, instead of printing. \
            Its stdin is one JSON object {"epoch","time","seq","firstSeq","sets","changes":[--json lines]}; its \
            environment has BOOKS_EPOCH, BOOKS_SEQ, BOOKS_FIRST_SEQ, BOOKS_CURSOR, BOOKS_TIME, BOOKS_SETS, \
            BOOKS_CHANGES, BOOKS_INSERTED, BOOKS_UPDATED, BOOKS_DELETED, BOOKS_RESYNC, BOOKS_INITIAL, BOOKS_IDS \
            (newline-separated, at most 1000 ids in 64 KiB) and, when one book changed, BOOKS_KIND, BOOKS_ID, \
            BOOKS_NAME, BOOKS_AUTHOR; a value over 16 KiB is cut, ending with …[truncated], and BOOKS_TRUNCATED=1 \
            says something was cut or left out (stdin has it all). A failing CMD is logged on stderr and never \
            stops the feed; a CMD that cannot be started is retried 3 times (0.1, 0.5, 2 s), then booksctl exits \
            1 without moving --cursor-file past that change set. --coalesce MS waits MS ms \
            after a change set and merges everything that arrived meanwhile (or while CMD ran) into one run. \
            --initial runs CMD once at start with every matching book as an insert (BOOKS_INITIAL=1, also when \
            none matches). \
            --count N / --once exit 0 after N change sets (after their runs, with --exec).
            """,
            """
            Stores: with a daemon serving several stores, subscribe without --store follows every store (also \
            those added later); --store NAME, given once or several times, follows those. Each text line then \
            starts with "STORE: " and each JSON line ends with "store":"NAME"; seq numbers are per store, and \
            booksctl resumes each store from its own point. Stores added, removed or not followed are reported on \
            stderr; a store that appears (a file created in or moved into the watched folder) starts empty, so its \
            books are printed as inserts (its seq 1), as a store that goes prints its books as deletes, with or \
            without --mirror. With --store given once (or a daemon with one store), text lines are as above and JSON lines \
            end with that store's "store" (none from a daemon of protocol version 1).
            """,
            """
            Over NATS (--nats URL): the store's JetStream stream, with the same options, meanings, lines ("store" \
            included) and exit codes as over the socket: --since counts booksd's seqs, not stream sequences, and \
            resumes after them; a gap in the stream prints the same resync line; --initial and --mirror start from \
            the store's key-value bucket (--initial prints its books ordered by id); --since TIME (ISO 8601, the \
            first change stored at or after it) works over NATS only. See docs/SCALE-OUT.md.
            """,
        ],
        examples: [
            ("booksctl subscribe", "follow every change"),
            ("booksctl subscribe --json --author tolkien", "JSON lines for books by authors matching 'tolkien'"),
            ("booksctl subscribe --initial --json | jq .id", "all current books, then changes"),
            ("booksctl subscribe --json --cursor-file ~/.cache/books.cursor", "resume where the last run stopped"),
            ("booksctl subscribe --coalesce 500 --exec make site", "rebuild on change, bursts merged"),
            ("booksctl subscribe --once --json", "wait for the next change set, print it, exit"),
            ("booksctl subscribe -s fiction -s to-read", "follow two stores, each line naming its store"),
        ])

    static var acceptsSeveralStores: Bool { true }

    init(parsing args: ScannedArguments) throws(UsageError) {
        _ = try args.fixedPositionals(Self.spec)
        if args.values["coalesce"] != nil && args.rest["exec"] == nil {
            throw args.fail("--coalesce needs --exec CMD (it merges the change sets of a burst into one run of CMD)")
        }
        if args.flag("conflicts") && args.rest["exec"] != nil {
            throw args.fail("--conflicts prints conflict lines; it does not go with --exec")
        }
        let coalesce = try args.values["coalesce"].map { text throws(UsageError) in try args.count(text, "--coalesce") }
        self.init(
            options: SubscribeOptions(
                json: args.flag("json"), name: args.values["name"], author: args.values["author"],
                initial: args.flag("initial"), mirror: args.flag("mirror"), since: args.values["since"],
                cursorFile: args.values["cursor-file"], exec: args.rest["exec"], coalesce: coalesce ?? 0,
                count: try Self.count(args), conflicts: args.flag("conflicts")))
    }

    /// `--count N` or `--once` (not both).
    private static func count(_ args: ScannedArguments) throws(UsageError) -> Int? {
        let once = args.flag("once")
        guard let text = args.values["count"] else { return once ? 1 : nil }
        guard !once else { throw args.fail("give --count or --once, not both") }
        let value = try args.count(text, "--count")
        guard value > 0 else { throw args.fail("--count needs a positive number") }
        return value
    }

    func run(_ context: CommandContext, subscribe: SubscribeRunner) async throws(BooksClientError) -> ExitCode {
        try await subscribe(options)
    }
}
