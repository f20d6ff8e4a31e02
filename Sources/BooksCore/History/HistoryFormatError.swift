/// Why saved history (a snapshot or a journal) cannot be used. Every case says where and why, for
/// the daemon's log line when it falls back to a new epoch.
public enum HistoryFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data ends before a complete header, record or field (`at` is the byte offset).
    case truncated(what: String, at: Int)
    /// The data does not start with the expected magic bytes.
    case badMagic(what: String)
    /// The data was written by an unknown format version.
    case unsupportedVersion(what: String, version: UInt32)
    /// A checksum does not match: the bytes changed after they were written.
    case checksumMismatch(what: String, at: Int)
    /// A field holds an impossible value.
    case invalid(what: String, at: Int)

    public var description: String {
        switch self {
        case .truncated(let what, let at): "the \(what) is truncated at byte \(at)"
        case .badMagic(let what): "the \(what) is not a booksd \(what) (wrong magic bytes)"
        case .unsupportedVersion(let what, let version): "the \(what) has unsupported format version \(version)"
        case .checksumMismatch(let what, let at): "the \(what) fails its checksum at byte \(at)"
        case .invalid(let what, let at): "the \(what) holds an impossible value at byte \(at)"
        }
    }
}
