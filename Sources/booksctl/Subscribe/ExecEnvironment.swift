/// The limits on what `subscribe --exec` puts into its command's environment (pure).
///
/// Linux refuses to start a program when one `NAME=value` string exceeds 128 KiB (`E2BIG`), so
/// one long book name or many long ids must not reach `posix_spawn` whole: the change is complete
/// on stdin, the variables are a convenience. A value longer than `maxValueBytes` is cut (at a
/// character boundary) and ends with `marker`; `BOOKS_IDS` holds at most `maxIDs` whole ids in at
/// most `maxIDsBytes`. Whatever was cut or left out sets `truncated`.
struct ExecEnvironment: Sendable {
    /// The longest value of one variable, in UTF-8 bytes (marker included).
    static let maxValueBytes = 16 * 1024
    /// At most this many ids go into `BOOKS_IDS`.
    static let maxIDs = 1000
    /// The longest `BOOKS_IDS`, in UTF-8 bytes.
    static let maxIDsBytes = 64 * 1024
    /// What ends a shortened value.
    static let marker = "…[truncated]"

    /// Whether a value was shortened or an id left out.
    private(set) var truncated = false

    /// `text` without NUL bytes, cut to `maxValueBytes` with `marker` when longer.
    mutating func value(_ text: String) -> String {
        let clean = text.contains("\0") ? String(text.unicodeScalars.filter { $0 != "\0" }) : text
        guard clean.utf8.count > Self.maxValueBytes else { return clean }
        truncated = true
        let room = Self.maxValueBytes - Self.marker.utf8.count
        var kept = ""
        var bytes = 0
        for scalar in clean.unicodeScalars {
            let size = String(scalar).utf8.count
            guard bytes + size <= room else { break }
            kept.unicodeScalars.append(scalar)
            bytes += size
        }
        return kept + Self.marker
    }

    /// The first ids (newline-separated, NUL bytes removed) that fit `maxIDs` and `maxIDsBytes`;
    /// no id is cut in the middle.
    mutating func ids(_ all: [String]) -> String {
        var kept: [String] = []
        var bytes = 0
        for id in all {
            let clean = id.contains("\0") ? String(id.unicodeScalars.filter { $0 != "\0" }) : id
            let size = clean.utf8.count + (kept.isEmpty ? 0 : 1)
            guard kept.count < Self.maxIDs, bytes + size <= Self.maxIDsBytes else {
                truncated = true
                break
            }
            kept.append(clean)
            bytes += size
        }
        return kept.joined(separator: "\n")
    }
}
