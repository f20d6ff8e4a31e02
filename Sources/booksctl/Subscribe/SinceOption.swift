import BooksProtocol
import FoundationEssentials

/// `subscribe --since`, one meaning on both transports: resume *after* a booksd position.
///
/// - `EPOCH:SEQ` (a cursor of a `--json` line): after change set SEQ of lineage EPOCH;
/// - `SEQ` (a number): after change set SEQ of the daemon's current lineage (`0`: every change
///   set it can still replay: from the socket, its change log; over NATS, the stream);
/// - a time: `-10m`, `-2h`, `-3d`, `today`, `yesterday`, an ISO 8601 date or time; from the first
///   change set applied (the socket: in the daemon's history kept) or stored (NATS) at or after it.
enum SinceOption: Sendable, Equatable {
    case cursor(Cursor)
    case seq(UInt64)
    case time(Date)

    /// Parses the value of `--since` (a WHEN: ``HistoryPoint``; relative times count back from
    /// `now`, local times are in `zone`); nil for anything else.
    init?(parsing text: String, now: Date = Date(), zone: HistoryTimeZone = .system) {
        switch try? HistoryPoint.parse(text, now: now, zone: zone) {
        case .seq(let seq): self = .seq(seq)
        case .time(let date): self = .time(date)
        case .cursor(let epoch, let seq): self = .cursor(Cursor(epoch: epoch, seq: seq))
        case nil: return nil
        }
    }

    /// `--since` and `--cursor-file` as one start, checked as both transports check them:
    /// nil when neither is given (start now).
    /// - Throws: a usage error for a value that is none of the forms, or combined with
    ///   `--mirror`/`--initial` (which start from a snapshot).
    static func start(_ options: SubscribeOptions) throws(SubscribeFailure) -> SinceOption? {
        if (options.since != nil || options.cursorFile != nil) && (options.mirror || options.initial) {
            throw SubscribeFailure(
                description: "--since and --cursor-file cannot be combined with --mirror or --initial")
        }
        if let since = options.since {
            guard let start = SinceOption(parsing: since) else {
                throw SubscribeFailure(
                    description: """
                        --since needs a cursor EPOCH:SEQ (as printed by subscribe --json), a SEQ, or a time \
                        (-10m, -2h, -3d, today, yesterday, ISO 8601), not '\(since)'
                        hint: EPOCH is the daemon's, a UUID (booksctl status shows it); e.g. --since \
                        5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90:17
                        """)
            }
            return start
        }
        let saved = try options.cursorFile.map { path throws(SubscribeFailure) in try CursorFile(path: path).load() }
        return saved.flatMap { $0 }.map { .cursor($0) }
    }
}
