/// The name of a store: a book file served by the daemon under that name.
///
/// Guarantees: a value always matches `[A-Za-z0-9][A-Za-z0-9._-]{0,63}` — 1 to 64 ASCII letters,
/// digits, `.`, `_` or `-`, starting with a letter or digit — so it is safe as a file name (a
/// subfolder of the state directory), in a log line and in a NATS subject token (NATS callers
/// still map `.`). Names are case-sensitive.
public struct StoreName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The validated name.
    public let rawValue: String

    /// The longest name accepted, in bytes.
    public static let maximumLength = 64

    /// The store of `--file` / `file`, and the one version-1 clients use when there are several.
    public static let `default` = StoreName(unchecked: "default")

    /// Validates `text`.
    /// - Throws: ``StoreConfigurationError/invalidName(_:reason:)`` saying which rule the text breaks.
    public init(_ text: String) throws(StoreConfigurationError) {
        if let reason = Self.problem(with: text) { throw .invalidName(text, reason: reason) }
        rawValue = text
    }

    init(unchecked text: String) { rawValue = text }

    /// Why `text` is not a valid name, or nil when it is.
    public static func problem(with text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first else { return "a store name cannot be empty" }
        guard bytes.count <= maximumLength else {
            return "a store name has at most \(maximumLength) characters (this one has \(bytes.count))"
        }
        guard isLetterOrDigit(first) else { return "a store name must start with a letter or a digit" }
        for byte in bytes
        where
            !(isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-"))
        {
            let shown = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII character"
            return "a store name may only hold letters, digits, '.', '_' and '-' (not \(shown))"
        }
        return nil
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The name itself.
    public var description: String { rawValue }

    /// Orders by the name's bytes.
    public static func < (lhs: StoreName, rhs: StoreName) -> Bool { lhs.rawValue < rhs.rawValue }
}
