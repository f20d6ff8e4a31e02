import CSystemd
import Glibc

/// Sends each record to the systemd journal with `sd_journal_sendv`, as the fields
/// `MESSAGE`, `PRIORITY` (syslog value), `SYSLOG_IDENTIFIER` and the caller's structured fields.
///
/// Field names are normalised by `journalFieldName(_:)`; caller fields named `MESSAGE`, `PRIORITY`
/// or `SYSLOG_IDENTIFIER` are dropped so they cannot override the record's own. If the journal
/// rejects a record, it is written to `fallback` instead. Note that `sd_journal_sendv` reports
/// success when there is no journal socket at all (ENOENT is ignored), which is why
/// `LogDestination.detect` only picks the journal when stderr is connected to it.
public struct JournalLogBackend: LogBackend {
    /// The `SYSLOG_IDENTIFIER` value.
    public let identifier: String
    /// Used when `sd_journal_sendv` fails.
    public let fallback: StderrLogBackend

    /// Creates a journal backend with identifier `booksd` unless told otherwise.
    public init(identifier: String = "booksd") {
        self.identifier = identifier
        self.fallback = StderrLogBackend(identifier: identifier)
    }

    /// Sends one record; never throws.
    public func write(level: LogLevel, message: String, fields: [String: String]) {
        let entries = Self.journalEntries(level: level, message: message, fields: fields, identifier: identifier)
        // One contiguous buffer holds every "KEY=value"; the iovecs point into it while it is pinned.
        var storage: [UInt8] = []
        var ranges: [(offset: Int, count: Int)] = []
        for entry in entries {
            ranges.append((storage.count, entry.utf8.count))
            storage.append(contentsOf: entry.utf8)
        }
        let result = storage.withUnsafeMutableBytes { raw -> Int32 in
            let iovs = ranges.map { iovec(iov_base: raw.baseAddress! + $0.offset, iov_len: $0.count) }
            return iovs.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress!, Int32($0.count)) }
        }
        if result < 0 { fallback.write(level: level, message: message, fields: fields) }
    }

    /// The `KEY=value` strings sent for a record, in order: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER,
    /// then caller fields sorted by normalised name.
    public static func journalEntries(
        level: LogLevel, message: String, fields: [String: String],
        identifier: String
    ) -> [String] {
        var entries = ["MESSAGE=\(message)", "PRIORITY=\(level.syslogPriority)", "SYSLOG_IDENTIFIER=\(identifier)"]
        let reserved: Set<String> = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"]
        let normalised = fields.map { (journalFieldName($0.key), $0.value) }
            .filter { !reserved.contains($0.0) }
            .sorted { $0.0 < $1.0 }
        for (key, value) in normalised { entries.append("\(key)=\(value)") }
        return entries
    }

    /// A valid journal field name for `key`: uppercased, characters other than `A–Z`, `0–9`, `_`
    /// replaced by `_`, prefixed with `F` if it would start with a digit or `_` (leading `_` marks
    /// trusted fields) or be empty, and cut to 64 characters.
    public static func journalFieldName(_ key: String) -> String {
        var name = String(
            key.uppercased().unicodeScalars.map { scalar -> Character in
                let v = scalar.value
                let ok = (v >= 65 && v <= 90) || (v >= 48 && v <= 57) || v == 95
                return ok ? Character(scalar) : "_"
            })
        if name.isEmpty || name.first == "_" || name.first!.isNumber { name = "F" + name }
        return String(name.prefix(64))
    }
}
