import BooksCore
import CLinux
import Glibc

/// Where a store's served mark (a ``ResumePoint``) is kept: the extended attribute `user.booksd.served.<file name>`
/// of the book file's directory — outside the state directory, so that an older copy of that
/// directory put back does not bring an older mark with it, and not on the book file, which every
/// editor's save replaces.
///
/// Best effort: where extended attributes are not supported or not allowed (NFS, tmpfs before
/// Linux 6.6, a sticky directory of another user), nothing is kept and a restored copy is not
/// detected; a failed write is never an error.
public struct ServedMarkAttribute: Sendable {
    /// The book file's directory.
    public let directory: String
    /// The attribute's name.
    public let name: String

    /// The mark of the book file at `bookPath`; nil when its name is too long for an attribute name.
    public init?(bookPath: String) {
        let slash = bookPath.lastIndex(of: "/")
        let file = slash.map { String(bookPath[bookPath.index(after: $0)...]) } ?? bookPath
        let directory = slash.map { String(bookPath[..<$0]) } ?? "."
        self.directory = directory.isEmpty ? "/" : directory
        name = "user.booksd.served." + file
        guard !file.isEmpty, name.utf8.count <= 255 else { return nil }
    }

    /// The mark last written, nil when there is none (or it cannot be read).
    public func read() -> ResumePoint? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { books_getxattr(directory, name, $0.baseAddress, 256) }
        guard n > 0 else { return nil }
        return ResumePoint(decoding: Array(buffer[..<Int(n)]))
    }

    /// Records `mark` (one `setxattr`, no sync).
    public func write(_ mark: ResumePoint) {
        let bytes = mark.encoded
        _ = bytes.withUnsafeBytes { books_setxattr(directory, name, $0.baseAddress, bytes.count) }
    }
}
