import BooksProtocol

/// A position in the change feed, `EPOCH:SEQ` (the last change seen), and when it happened.
///
/// `subscribe --json` prints one on every line, `--since EPOCH:SEQ` resumes after one, and
/// `--cursor-file` keeps the last one printed.
struct Cursor: Sendable, Equatable {
    /// The daemon's lineage (a UUID).
    var epoch: String
    /// The last change set seen in that epoch.
    var seq: UInt64
    /// When the change was applied (ISO 8601), if known.
    var time: String?

    /// `EPOCH:SEQ`.
    var text: String { "\(epoch):\(seq)" }

    /// Where to resume the feed.
    var resumePoint: ResumePoint { ResumePoint(epoch: epoch, seq: seq) }

    /// `"epoch":…` and `"time":…` for a JSON line (`time` is null when unknown).
    var jsonPairs: [(String, String)] {
        [("epoch", JSONLine.string(epoch)), ("time", time.map(JSONLine.string) ?? "null")]
    }

    /// Parses `EPOCH:SEQ` (the epoch may not be empty and may not contain `:` or white space; the
    /// seq is a decimal number); surrounding white space (a cursor file's newline) is ignored.
    /// Returns nil for anything else.
    init?(parsing text: String) {
        let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        let body = String(trimmed)
        guard let colon = body.lastIndex(of: ":") else { return nil }
        let epoch = String(body[..<colon])
        guard !epoch.isEmpty, !epoch.contains(where: { $0 == ":" || $0.isWhitespace }),
            let seq = UInt64(body[body.index(after: colon)...])
        else { return nil }
        self.init(epoch: epoch, seq: seq)
    }

    /// A cursor at `epoch`/`seq`.
    init(epoch: String, seq: UInt64, time: String? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.time = time
    }
}
