import BooksCore

/// One store to serve: its name, its book file and the file's format.
///
/// A value is complete: the name is validated and the path is non-empty. Relative paths are kept
/// as given (resolved against the daemon's working directory when the file is opened).
public struct StoreSpec: Sendable, Hashable, CustomStringConvertible {
    /// The store's name.
    public var name: StoreName
    /// The book file.
    public var path: String
    /// The book file's format.
    public var format: BookFileFormat

    /// A store named `name` for the file at `path` in `format`.
    public init(name: StoreName, path: String, format: BookFileFormat) {
        self.name = name
        self.path = path
        self.format = format
    }

    /// Parses `NAME=PATH[:FORMAT]` (`--store`): FORMAT is `text` or `json`; without it the format
    /// is `json` for a path ending in `.json`, else `text`. A path may itself contain `:` (only a
    /// last `:text` or `:json` is read as the format).
    /// - Throws: ``StoreConfigurationError/invalidSpecification(_:reason:)`` or
    ///   ``StoreConfigurationError/invalidName(_:reason:)``.
    public static func parse(_ text: String) throws(StoreConfigurationError) -> StoreSpec {
        guard let eq = text.firstIndex(of: "=") else {
            throw .invalidSpecification(text, reason: "missing '=' between the name and the path")
        }
        let name = try StoreName(String(text[..<eq]))
        var path = String(text[text.index(after: eq)...])
        var format: BookFileFormat?
        if let colon = path.lastIndex(of: ":"),
            let named = BookFileFormat(rawValue: String(path[path.index(after: colon)...]))
        {
            format = named
            path = String(path[..<colon])
        }
        guard !path.isEmpty else { throw .invalidSpecification(text, reason: "the path is empty") }
        return StoreSpec(name: name, path: path, format: format ?? Self.format(forPath: path))
    }

    /// `json` for a path ending in `.json`, else `text`.
    public static func format(forPath path: String) -> BookFileFormat {
        path.hasSuffix(".json") ? .json : .text
    }

    /// `NAME=PATH:FORMAT`.
    public var description: String { "\(name)=\(path):\(format)" }
}
