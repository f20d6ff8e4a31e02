import Glibc

/// Why a store could not read or write the book file. Every case names the path and the cause.
public enum BookFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path exists but is not a regular file (a directory, FIFO, socket, device).
    case notARegularFile(path: String, kind: String)
    /// The book path is a symbolic link and the store does not follow links
    /// (`BookStoreConfiguration.allowSymlink` is off): nothing is read or written through it.
    case symlinkRefused(path: String, target: String)
    /// The book path is a symbolic link owned by another user than the daemon's: not followed,
    /// even with `allowSymlink`.
    case symlinkNotOwned(path: String, target: String, owner: uid_t)
    /// The file has no write permission for the daemon (e.g. mode 0444, for root too): it is
    /// treated as read-only and never rewritten or appended to.
    case readOnlyFile(path: String, mode: mode_t)
    /// A rewrite could not keep the file's owner and group (a non-root daemon cannot give a file
    /// to another user): refused rather than silently change them.
    case cannotKeepOwner(path: String, owner: uid_t, group: gid_t, errno: Int32)
    /// A rewrite could not keep an extended attribute (an ACL is `system.posix_acl_access`).
    case cannotKeepAttribute(path: String, name: String, errno: Int32)
    /// A system call failed.
    case system(path: String, operation: String, errno: Int32)
    /// The file is larger than the store accepts.
    case tooLarge(path: String, size: Int, limit: Int)
    /// The content cannot be read as books in this format (e.g. invalid JSON); it is never rewritten.
    case invalidContent(path: String, detail: String)
    /// The file changed while a write was being prepared; the write was not done.
    case changedDuringWrite(path: String)
    /// A save named a book that the document does not hold.
    case unknownBook(String)
    /// An append failed part-way (`errno`, or its `fdatasync` failed) and could not be cut back:
    /// another program wrote to the file at that moment (its bytes are never cut), or the clean-up
    /// failed twice with an I/O error. The `written` bytes of the append were left in the file:
    /// the append was not done, and the file needs a look.
    case appendLeftPartial(path: String, written: Int, of: Int, errno: Int32)
    /// Two programs replaced the file while a write was being checked: the write was not done, the
    /// newest version is at `path`, and the other one was kept at `keptAt` (never deleted).
    case concurrentEditKept(path: String, keptAt: String)

    public var description: String {
        switch self {
        case .notARegularFile(let path, let kind): return "\(path) is a \(kind), not a regular file"
        case .symlinkRefused(let path, let target):
            return "\(path) is a symbolic link (to \(target)); booksd does not follow it by default, so it reads "
                + "and rewrites no other file: replace the link with the file, or set allow_symlink = true to follow "
                + "links owned by the daemon's user"
        case .symlinkNotOwned(let path, let target, let owner):
            return "\(path) is a symbolic link (to \(target)) owned by uid \(owner), not by the daemon's user "
                + "(uid \(geteuid())): it is not followed, even with allow_symlink"
        case .readOnlyFile(let path, let mode):
            return "\(path) is read-only for booksd (mode \(String(mode, radix: 8))): it is not rewritten; "
                + "give the daemon's user write permission (e.g. chmod u+w) to allow client writes"
        case .cannotKeepOwner(let path, let owner, let group, let code):
            return "\(path) belongs to uid \(owner), gid \(group), which booksd (uid \(geteuid())) cannot give "
                + "to the rewritten file (\(String(cString: strerror(code)))): not rewritten; run booksd as "
                + "the file's owner, or give the file to the daemon's user and group"
        case .cannotKeepAttribute(let path, let name, let code):
            return "the rewritten \(path) cannot keep the extended attribute \(name) "
                + "(\(String(cString: strerror(code)))): not rewritten"
        case .system(let path, let operation, let code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        case .tooLarge(let path, let size, let limit):
            return "\(path) is \(size) bytes, more than the \(limit)-byte limit"
        case .invalidContent(let path, let detail): return "\(path): \(detail)"
        case .changedDuringWrite(let path): return "\(path) changed while the write was prepared"
        case .unknownBook(let id): return "no book with id \(id)"
        case .appendLeftPartial(let path, let written, let total, let code):
            return
                "append to \(path) failed after \(written) of \(total) bytes "
                + "(\(String(cString: strerror(code)))) and could not be cut back (another program wrote to the "
                + "file, or the clean-up failed too): the append was not done, and its incomplete row was left in "
                + "the file (remove it by hand)"
        case .concurrentEditKept(let path, let kept):
            return "\(path) was replaced twice while a write was checked; the write was not done, "
                + "the newest version is in place and the one it replaced was kept in \(kept)"
        }
    }

    /// The errno behind the error, if any.
    public var errnoCode: Int32? {
        if case .system(_, _, let code) = self { return code }
        if case .appendLeftPartial(_, _, _, let code) = self { return code }
        return nil
    }
}
