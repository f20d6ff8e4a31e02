import BooksCore
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

    /// True when `epoch` has the shape of the epochs booksd makes: a UUID
    /// (`XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`, hexadecimal digits in either case).
    static func isDaemonEpoch(_ epoch: String) -> Bool {
        let utf8 = Array(epoch.utf8)
        guard utf8.count == 36 else { return false }
        return utf8.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : Character(Unicode.Scalar(byte)).isHexDigit
        }
    }

    /// A cursor at `epoch`/`seq`.
    init(epoch: String, seq: UInt64, time: String? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.time = time
    }
}
