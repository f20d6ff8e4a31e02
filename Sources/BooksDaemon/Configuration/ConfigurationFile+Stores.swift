import BooksCore

/// `store NAME = PATH [FORMAT]` lines of `booksd.conf`.
extension ConfigurationFile {
    /// The store of one `store NAME = PATH [FORMAT]` line: `keyText` is `store NAME`, `value` is
    /// the (unquoted) `PATH [FORMAT]`; FORMAT is `text` or `json` (default: from the extension).
    /// - Throws: `.store` (invalid name) or `.syntax` (empty path).
    static func storeSpec(name keyText: String, value: String, line: Int) throws(ConfigurationError) -> StoreSpec {
        let nameText = String(keyText.dropFirst("store ".count)).trimmingSpaces()
        let name: StoreName
        do { name = try StoreName(nameText) } catch { throw .store(line: line, error) }
        var path = value
        var format = StoreSpec.format(forPath: value)
        if let space = value.lastIndex(where: { $0 == " " || $0 == "\t" }) {
            let word = String(value[value.index(after: space)...])
            if let named = BookFileFormat(rawValue: word) {
                format = named
                path = String(value[..<space]).trimmingSpaces()
            }
        }
        guard !path.isEmpty, !path.contains("\0") else {
            throw .syntax(
                line: line, text: keyText + " = " + value, problem: "expected \"store NAME = PATH [text|json]\"")
        }
        return StoreSpec(name: name, path: path, format: format)
    }
}
