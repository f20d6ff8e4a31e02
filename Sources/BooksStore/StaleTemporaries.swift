import BooksCore
import CLinux
import Glibc

/// What start-up did with the temporary files a killed writer left beside the book file.
public struct StaleTemporaries: Sendable, Hashable {
    /// A leftover kept because its content may be someone's edit.
    public struct Kept: Sendable, Hashable {
        /// The temporary file's name (`.books.txt.booksd-XXXXXX`).
        public var name: String
        /// Where it was moved (`books.txt.recovered-…`), or its own path when it could not be moved.
        public var keptAt: String
    }

    /// Names of leftovers removed: empty, identical to the book file, or not regular files
    /// (a symlink is removed, never followed).
    public var removed: [String] = []
    /// Leftovers whose content differs from the book file, moved to recovery files.
    public var kept: [Kept] = []
    /// Files with a temporary's name that booksd cannot have written (owned by a user that is
    /// neither booksd's nor the book file's, e.g. planted in a shared sticky folder): left alone,
    /// as `name (uid N)`. They are never read, moved or followed, and never block a write (each
    /// write creates a new temporary with a random name).
    public var leftAlone: [String] = []

    /// One line for the log, nil when nothing was found.
    public var logMessage: String? {
        var parts: [String] = []
        if !removed.isEmpty {
            parts.append("removed temporary files left by an interrupted write: \(removed.joined(separator: ", "))")
        }
        if !leftAlone.isEmpty {
            parts.append(
                "left alone files named like booksd's temporaries that another user owns (booksd did not write "
                    + "them): \(leftAlone.joined(separator: ", "))")
        }
        for entry in kept {
            parts.append(
                "a temporary file left by an interrupted write, \(entry.name), differs from the book file "
                    + "(it may be a version the write had replaced) and was kept in \(entry.keptAt)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

extension AtomicFileWriter {
    /// Deals with the temporary files a killed writer left beside `path` (`.books.txt.booksd-XXXXXX`):
    /// one identical to the book file, or empty, is removed; one whose content differs is moved to
    /// a recovery file (`RecoveryFile.move`), because a writer killed between its swap and its
    /// check leaves the user's version there. A leftover is never read as the book file and
    /// never followed; one owned by neither booksd's user nor the book file's owner (planted in
    /// a shared folder) is left alone (`leftAlone`). `listing`, when given, holds the entry names of the book's directory the
    /// caller listed (one listing for many book files of one folder); only used when the path is
    /// not a symlink, else the directory is listed here.
    public static func cleanUpStaleTemporaries(beside path: String, listing: [String]? = nil) -> StaleTemporaries {
        let book = resolveSymlink(path)
        let parts = PathParts(book)
        let prefix = temporaryPrefix(for: book)
        var result = StaleTemporaries()
        var names: [String] = []
        let isTemporary = { (name: String) in name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 }
        if let listing, book == path {
            names = listing.filter(isTemporary)
        } else {
            guard let dir = opendir(parts.directory) else { return result }
            while let entry = readdir(dir) {
                let name = String(cString: books_dirent_name(entry))
                if isTemporary(name) { names.append(name) }
            }
            closedir(dir)
        }
        var bookContent: FileSnapshot?
        var bookStatus = stat()
        let bookOwner = stat(book, &bookStatus) == 0 ? bookStatus.st_uid : geteuid()
        for name in names.sorted() {
            let leftover = parts.directory + "/" + name
            var s = stat()
            guard lstat(leftover, &s) == 0 else { continue }
            // booksd's temporaries are its own user's (or, as root, the book file's owner's: the
            // owner is copied). Anything else was put there by someone else.
            if s.st_uid != geteuid(), s.st_uid != bookOwner {
                result.leftAlone.append("\(name) (uid \(s.st_uid))")
                continue
            }
            if s.st_mode & S_IFMT == S_IFREG, s.st_size > 0 {
                if bookContent == nil { bookContent = FileReader.read(book) }
                if !sameContent(leftover, size: Int(s.st_size), as: bookContent!) {
                    result.kept.append(.init(name: name, keptAt: RecoveryFile.move(leftover, beside: book) ?? leftover))
                    continue
                }
            } else if s.st_mode & S_IFMT == S_IFDIR {
                continue
            }
            if unlink(leftover) == 0 { result.removed.append(name) }
        }
        if !result.kept.isEmpty { syncDirectory(parts.directory) }
        return result
    }

    /// Whether the regular file `leftover` (not followed) holds exactly the book file's content.
    static func sameContent(_ leftover: String, size: Int, as book: FileSnapshot) -> Bool {
        guard case .present(let bookBytes, _) = book, bookBytes.count == size else { return false }
        let fd = Interrupted.retry { open(leftover, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard
            case .present(let bytes, _) = FileReader.read(
                fd, size: size, path: leftover,
                sizeLimit: FileReader.defaultSizeLimit)
        else { return false }
        return ByteComparison.equal(bytes, bookBytes)
    }
}
