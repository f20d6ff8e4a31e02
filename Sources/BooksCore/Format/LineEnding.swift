/// A file's line-end style, detected from its first line end and kept on every rewrite.
public enum LineEnding: String, Sendable, Hashable, Codable {
    /// `\n`
    case lf
    /// `\r\n`
    case crlf

    /// The bytes of one line end.
    public var bytes: [UInt8] { self == .lf ? [0x0A] : [0x0D, 0x0A] }
}
