/// The bearer tokens of `http_token_file`, each with what it may do. Pure.
///
/// The file has one token a line: `TOKEN` or `TOKEN write` (may read and write), `TOKEN read`
/// (may only read: a `POST`, `PUT` or `DELETE` with it is 403). After the role, the rest of the
/// line is a free-form label (whose token it is). Blank lines and lines starting with `#` are
/// ignored; a token may not contain white space.
public struct HTTPTokens: Sendable, Hashable {
    /// What a token may do.
    public enum Role: String, Sendable, Hashable {
        /// Every request.
        case write
        /// Only `GET` and `HEAD`.
        case read
    }

    /// One token.
    public struct Entry: Sendable, Hashable {
        /// The token's text.
        public var token: String
        /// What it may do.
        public var role: Role
        /// The label after the role (may be empty).
        public var label: String

        /// An entry.
        public init(token: String, role: Role, label: String = "") {
            self.token = token
            self.role = role
            self.label = label
        }
    }

    /// The tokens, in file order.
    public var entries: [Entry]

    /// Tokens.
    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// One token that may do everything (the file holding only a token).
    public init(token: String) {
        self.init([Entry(token: token, role: .write)])
    }

    /// The tokens of a token file's `text`.
    /// - Throws: `HTTPTokenFileError` naming the line with a role other than `read`/`write`, or
    ///   when the file holds no token.
    public static func parse(_ text: String) throws(HTTPTokenFileError) -> HTTPTokens {
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            var role = Role.write
            if words.count > 1 {
                guard let named = Role(rawValue: String(words[1])) else {
                    throw HTTPTokenFileError(line: index + 1, reason: "the role is read or write, not \(words[1])")
                }
                role = named
            }
            entries.append(Entry(token: String(first), role: role, label: words.dropFirst(2).joined(separator: " ")))
        }
        guard !entries.isEmpty else { throw HTTPTokenFileError(line: 0, reason: "it holds no token") }
        return HTTPTokens(entries)
    }

    /// The entry whose token `authorization` (the header's value, `Bearer TOKEN`) carries, or nil.
    /// Every token is compared in full (no early exit: the tokens do not leak through timing).
    public func entry(authorization: String?) -> Entry? {
        guard let authorization else { return nil }
        var found: Entry?
        for entry in entries where Self.constantTimeEquals(authorization, "Bearer " + entry.token) {
            found = found ?? entry
        }
        return found
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}

/// A token file that cannot be used.
public struct HTTPTokenFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line (1-based; 0: the whole file).
    public var line: Int
    /// Why.
    public var reason: String

    public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
}
