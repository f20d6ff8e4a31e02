import BooksCore

/// Which file names of a watched folder are stores (pure).
///
/// A store is `NAME.txt` (text) or `NAME.json` (JSON) where NAME is a valid ``StoreName``.
/// Never a store: dotfiles (vim's `.name.swp`, emacs's `.#name`, rsync's `.name.XXXXXX`,
/// Python's `.name.tmp`), names with `~` (backups), `#name#` (emacs auto-save), vim's `4913`
/// probe, `sedXXXXXX` / perl temporaries (no `.txt` / `.json` ending), `.swp`/`.swx`, `.bak`.
public enum StoreFolderNames {
    /// The store for the folder entry `fileName`, or nil when it is not one (with why, for a
    /// name that looks like a store file but is not a valid store name).
    public static func store(for fileName: String) -> (name: StoreName, format: BookFileFormat)? {
        guard case .store(let name, let format) = classify(fileName) else { return nil }
        return (name, format)
    }

    /// What a folder entry is.
    public enum Kind: Sendable, Hashable {
        /// A store file.
        case store(StoreName, BookFileFormat)
        /// Not a book file (other extension, editor temporary, backup, dotfile).
        case ignored
        /// A `.txt` / `.json` file whose base name is not a valid store name (logged once).
        case invalidName(String)
    }

    /// Classifies `fileName` (an entry name, no `/`).
    public static func classify(_ fileName: String) -> Kind {
        if fileName.hasPrefix(".") || fileName.hasPrefix("#") || fileName.contains("~") || fileName.hasSuffix("#") {
            return .ignored
        }
        let format: BookFileFormat
        let base: Substring
        if fileName.hasSuffix(".txt") {
            format = .text
            base = fileName.dropLast(4)
        } else if fileName.hasSuffix(".json") {
            format = .json
            base = fileName.dropLast(5)
        } else {
            return .ignored
        }
        guard let name = try? StoreName(String(base)) else { return base.isEmpty ? .ignored : .invalidName(fileName) }
        return .store(name, format)
    }
}
