import BooksCore
import CLinux
import Glibc

/// Keeps what a rewrite would otherwise change about the book file: its owner and group, its
/// permission bits, and its extended attributes (ACLs are `system.posix_acl_access`); and refuses
/// to rewrite a file that could not be written in place.
enum FileFidelity {
    /// Throws `.readOnlyFile` when the euid has no write permission on the file `existing` at
    /// `path`: for a non-root process as the kernel decides (mode bits, ACLs); for root, when the
    /// file has no write bit at all (root could write it, but 0444 says the file is read-only).
    static func checkWritable(_ existing: stat, path: String) throws(BookFileError) {
        let writable: Bool
        if geteuid() == 0 {
            writable = existing.st_mode & 0o222 != 0
        } else {
            writable = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 || errno != EACCES
        }
        guard writable else { throw .readOnlyFile(path: path, mode: existing.st_mode & 0o7777) }
    }

    /// Gives the new file `fd` (at `temporary`) the owner, group, extended attributes and mode of
    /// the file `existing` at `path` (not followed). Throws `.cannotKeepOwner` or
    /// `.cannotKeepAttribute` rather than write a file that silently lost one of them.
    static func copy(from path: String, _ existing: stat, to fd: Int32) throws(BookFileError) {
        var own = stat()
        guard fstat(fd, &own) == 0 else {
            throw .system(path: path, operation: "fstat the new version of", errno: errno)
        }
        if own.st_uid != existing.st_uid || own.st_gid != existing.st_gid {
            // Only root may give a file away; a user may set a group it belongs to.
            guard fchown(fd, existing.st_uid, existing.st_gid) == 0 else {
                throw .cannotKeepOwner(path: path, owner: existing.st_uid, group: existing.st_gid, errno: errno)
            }
        }
        for name in try attributeNames(path) {
            guard let value = value(of: name, path: path) else { continue }  // removed meanwhile
            if books_fsetxattr(fd, name, value, value.count) == 0 { continue }
            let code = errno
            // Already there with that value (e.g. a security label the new file got anyway).
            var current = [UInt8](repeating: 0, count: value.count + 1)
            let n = books_fgetxattr(fd, name, &current, current.count)
            if n == value.count, Array(current[..<n]) == value { continue }
            throw .cannotKeepAttribute(path: path, name: name, errno: code)
        }
        // Last: fchown clears set-id bits, and setting an ACL sets the group bits.
        guard fchmod(fd, existing.st_mode & 0o7777) == 0 else {
            throw .system(path: path, operation: "set the mode of the new version of", errno: errno)
        }
    }

    /// The names of `path`'s extended attributes that this process can list.
    static func attributeNames(_ path: String) throws(BookFileError) -> [String] {
        while true {
            let size = books_llistxattr(path, nil, 0)
            if size < 0 {
                if errno == ENOTSUP { return [] }  // the file system has none
                throw .system(path: path, operation: "list the extended attributes of", errno: errno)
            }
            if size == 0 { return [] }
            var list = [CChar](repeating: 0, count: size)
            let n = books_llistxattr(path, &list, size)
            if n < 0 {
                if errno == ERANGE { continue }  // grew meanwhile
                throw .system(path: path, operation: "list the extended attributes of", errno: errno)
            }
            return list[..<n].split(separator: 0).map {
                String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }

    /// The value of `path`'s attribute `name`; nil when it is gone.
    static func value(of name: String, path: String) -> [UInt8]? {
        for _ in 0..<4 {
            let size = books_lgetxattr(path, name, nil, 0)
            guard size >= 0 else { return nil }
            var value = [UInt8](repeating: 0, count: size)
            let n = books_lgetxattr(path, name, &value, size)
            if n >= 0 { return Array(value[..<n]) }
            if errno != ERANGE { return nil }
        }
        return nil
    }
}
