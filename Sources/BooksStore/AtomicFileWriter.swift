import BooksCore
import CLinux
import Glibc

/// Replaces a file atomically and durably: a temporary file in the same directory, `fsync`,
/// `rename` over the target, `fsync` of the directory.
///
/// Guarantees: a reader sees either the old or the new content, never a mix; after `write`
/// returns, the new content survives a crash or power loss; the existing file's permission bits,
/// owner and group, and extended attributes (ACLs included) are kept, or the write is refused
/// (`FileFidelity`), as is the rewrite of a file the daemon has no write permission on; a symlink
/// at the path is refused unless `allowSymlink` and the link is owned by the effective user (then
/// its target is replaced and the link stays). On any failure the target is untouched and the
/// temporary file is removed (only ever the daemon's own inode: see `putBack`).
public enum AtomicFileWriter {
    /// The temporary-file prefix for `path`'s base name: `.books.txt.booksd-`.
    public static func temporaryPrefix(for path: String) -> String {
        "." + PathParts(path).base + ".booksd-"
    }

    /// Writes `bytes` to `path`. With `expected`, the write is refused with `.changedDuringWrite`
    /// when the file's identity just before the rename differs (a hand edit happened meanwhile);
    /// with `expectMissing`, when a file appeared. With `expected` and `isExpectedContent` (the
    /// test that the content replaced is the version the write was planned on), the file is
    /// swapped in atomically and the version replaced is checked after the swap and put back when
    /// the test fails, which closes the window between the identity check and the rename; a
    /// process that has the replaced version open for writing, or opens it while it is checked,
    /// also puts it back (`ReplacedVersionGuard`). One that opens it in the instant after the
    /// check is waited for, and what it wrote is returned as `lateEdit` for the caller to apply.
    ///
    /// `expectedContent` is the same test as `isExpectedContent` for the common case of an exact
    /// version (the replaced file must be these bytes): it is compared chunk by chunk
    /// (`FileReader.compare`), without reading the replaced version into a file-sized buffer.
    @discardableResult
    public static func write(
        _ bytes: [UInt8], to path: String, expected: FileIdentity? = nil,
        expectMissing: Bool = false, allowSymlink: Bool = false,
        expectedContent: [UInt8]? = nil, isExpectedContent: (([UInt8]) -> Bool)? = nil
    ) throws(BookFileError) -> AtomicWriteResult {
        try write(
            pieces: [bytes[...]], to: path, expected: expected, expectMissing: expectMissing,
            allowSymlink: allowSymlink, expectedContent: expectedContent, isExpectedContent: isExpectedContent)
    }

    /// `write(_:to:…)` of the bytes of `pieces` one after the other (a large file changed in one
    /// place is written from the old version's slices and the new span: no file-sized copy).
    @discardableResult
    public static func write(
        pieces: [ArraySlice<UInt8>], to path: String, expected: FileIdentity? = nil,
        expectMissing: Bool = false, allowSymlink: Bool = false,
        expectedContent: [UInt8]? = nil, isExpectedContent: (([UInt8]) -> Bool)? = nil
    ) throws(BookFileError) -> AtomicWriteResult {
        let target = try FileReader.resolveBookPath(path, allowSymlink: allowSymlink).get()
        let parts = PathParts(target)
        let (fd, temporary) = Interrupted.makeTemporary(parts.directory + "/" + temporaryPrefix(for: target) + "XXXXXX")
        guard fd >= 0 else { throw .system(path: parts.directory, operation: "create temporary file in", errno: errno) }
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // Kept open to the end: its inode tells the daemon's own temporary file from anything
        // another process moves to the temporary name meanwhile.
        defer { close(fd) }
        do {
            var existing = stat()
            if lstat(target, &existing) == 0 {
                if existing.st_mode & S_IFMT == S_IFLNK {  // appeared since the path was resolved
                    throw BookFileError.symlinkRefused(path: path, target: FileReader.linkTarget(target))
                }
                try FileFidelity.checkWritable(existing, path: target)
                try FileFidelity.copy(from: target, existing, to: fd)
            } else {
                fchmod(fd, 0o666 & ~currentUmask())
            }
            for piece in pieces {
                if let code = Interrupted.writeAll(fd, piece).failure {
                    throw BookFileError.system(path: temporary, operation: "write", errno: code)
                }
            }
            guard Interrupted.retry({ fsync(fd) }) == 0 else {
                throw BookFileError.system(path: temporary, operation: "fsync", errno: errno)
            }
        } catch let error as BookFileError {
            throw error
        } catch {
            throw .system(path: temporary, operation: "write", errno: EIO)
        }
        let now = FileIdentity.of(path: target)
        if let expected, now != expected { throw .changedDuringWrite(path: path) }
        if expectMissing, now != nil { throw .changedDuringWrite(path: path) }
        var ownStat = stat()
        guard fstat(fd, &ownStat) == 0 else { throw .system(path: temporary, operation: "fstat", errno: errno) }
        let own = (device: UInt64(ownStat.st_dev), inode: UInt64(ownStat.st_ino))
        if let expected, expectedContent != nil || isExpectedContent != nil {
            // Close the window between the check above and the rename: exchange the two entries,
            // then prove that what was replaced is exactly the version read (same inode, same
            // content). A hand edit that slipped in (in place or by rename) is put back and the
            // write is refused, so it is retried on top of the edit instead of overwriting it.
            if Interrupted.retry({ books_rename_exchange(temporary, target) }) == 0 {
                // A writer that opened the path just before the exchange writes to the replaced
                // version: the lease on it shows one that has it open (refused, like any
                // concurrent edit) or opens it while the content is checked (put back too).
                let replaced = ReplacedVersionGuard(path: temporary)
                let checked =
                    replaced.state == .writerOpen
                    ? nil
                    : replacedVersion(
                        at: temporary, of: expected, content: expectedContent, test: isExpectedContent)
                guard let checked, !replaced.writerArrived else {
                    renamed = true  // from here on, the temporary name is only removed when it is our inode
                    try putBack(temporary: temporary, target: target, own: own, path: path)
                    throw .changedDuringWrite(path: path)  // the guard's deinit lets a waiting writer go on
                }
                let synced = syncDirectory(parts.directory)
                renamed = true
                // The replaced version; anything else moved to the temporary name meanwhile is
                // never deleted (it stays, and is kept in a recovery file at the next start).
                if entry(temporary, is: (checked.device, checked.inode)) { unlink(temporary) }
                guard let identity = FileIdentity.of(path: target) else {
                    throw .system(path: target, operation: "stat", errno: errno)
                }
                // A writer that opened it in the instant between the check and the unlink wrote
                // to a file that is gone: hand its content to the caller.
                let late = replaced.writerArrived ? replaced.contentAfterWriters(checked: checked) : nil
                return AtomicWriteResult(identity: identity.placedNow(), lateEdit: late, directorySynced: synced)
            }
            let code = errno
            if code == ENOENT { throw .changedDuringWrite(path: path) }
            guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else {
                throw .system(path: target, operation: "exchange onto", errno: code)
            }
            // The file system cannot exchange: fall back to the checked rename.
        }
        guard Interrupted.retry({ rename(temporary, target) }) == 0 else {
            throw .system(path: target, operation: "rename onto", errno: errno)
        }
        renamed = true
        let synced = syncDirectory(parts.directory)
        guard let identity = FileIdentity.of(path: target) else {
            throw .system(path: target, operation: "stat", errno: errno)
        }
        return AtomicWriteResult(identity: identity.placedNow(), lateEdit: nil, directorySynced: synced)
    }

    /// The identity of the version at `temporary` (the one a swap just replaced) when it is the
    /// inode of `expected` and its content is `content` (compared chunk by chunk) or passes
    /// `test` (read whole); nil otherwise.
    static func replacedVersion(
        at temporary: String, of expected: FileIdentity, content: [UInt8]?, test: (([UInt8]) -> Bool)?
    ) -> FileIdentity? {
        let identity: FileIdentity
        if let content {
            let comparison = ReadBuffer().withBuffer { FileReader.compare(temporary, with: content, buffer: $0) }
            guard case .unchanged(let found) = comparison else { return nil }
            identity = found
        } else {
            guard let test, case .present(let old, let found) = FileReader.read(temporary), test(old) else {
                return nil
            }
            identity = found
        }
        return identity.device == expected.device && identity.inode == expected.inode ? identity : nil
    }

    /// Undoes a refused swap: exchanges the entries back, so the version that was replaced is at
    /// `target` again and the daemon's file at `temporary`. When another program moved a file onto
    /// `target` meanwhile (an editor's `mv` during the content check), that file is what comes
    /// back to the temporary name: it is moved back to `target` (the newest version stays in
    /// place) and the version it replaced is kept in a recovery file; nothing but the daemon's
    /// own inode is ever unlinked.
    static func putBack(
        temporary: String, target: String, own: (device: UInt64, inode: UInt64),
        path: String
    ) throws(BookFileError) {
        guard Interrupted.retry({ books_rename_exchange(temporary, target) }) == 0 else {
            // Keep the user's file, now at the temporary name.
            throw .system(path: temporary, operation: "put back a concurrent edit of \(target) (kept at)", errno: errno)
        }
        if entry(temporary, is: own) {
            unlink(temporary)
            return
        }
        var s = stat()
        guard lstat(temporary, &s) == 0 else { return }  // nothing there any more
        // Another program's file came back to the temporary name: it was moved onto the path
        // after the swap, so it is the newest version. Put it back at the path; the version it
        // replaced then comes to the temporary name and is kept in a recovery file.
        _ = Interrupted.retry { books_rename_exchange(temporary, target) }
        if entry(temporary, is: own) {
            unlink(temporary)
            syncDirectory(PathParts(target).directory)
            throw .changedDuringWrite(path: path)
        }
        let kept = RecoveryFile.move(temporary, beside: target) ?? temporary
        syncDirectory(PathParts(target).directory)
        throw .concurrentEditKept(path: path, keptAt: kept)
    }

    /// Whether the directory entry `path` (not followed) is the inode `identity`.
    static func entry(_ path: String, is identity: (device: UInt64, inode: UInt64)) -> Bool {
        var s = stat()
        return lstat(path, &s) == 0 && UInt64(s.st_dev) == identity.device && UInt64(s.st_ino) == identity.inode
    }

    /// `fsync`s the directory `path` (making a rename in it durable), trying a second time when
    /// opening or syncing it fails; whether it succeeded.
    @discardableResult
    static func syncDirectory(_ path: String) -> Bool {
        for _ in 0..<2 {
            let directory = Interrupted.retry { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard directory >= 0 else { continue }
            let synced = Interrupted.retry { fsync(directory) } == 0
            close(directory)
            if synced { return true }
        }
        return false
    }

    /// Removes temporary files a killed writer left beside `path`; returns their names. A leftover
    /// whose content differs from the book file (a user's version the writer had swapped out when
    /// it was killed) is not removed but kept in a recovery file: its entry then reads
    /// `.books.txt.booksd-XXXXXX (kept in books.txt.recovered-…)`. See `cleanUpStaleTemporaries`.
    @discardableResult
    public static func removeStaleTemporaries(beside path: String) -> [String] {
        let found = cleanUpStaleTemporaries(beside: path)
        return found.removed
            + found.kept.map { "\($0.name) (its content differs from the book file: kept in \($0.keptAt))" }
    }

    static func resolveSymlink(_ path: String) -> String {
        var s = stat()
        guard lstat(path, &s) == 0, s.st_mode & S_IFMT == S_IFLNK, let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    static func currentUmask() -> mode_t {
        // umask(2) can only be read by setting it; /proc/self/status has it without a race.
        guard let file = fopen("/proc/self/status", "r") else { return 0o022 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("Umask:") {
                let value = text.dropFirst(6).trimmingCharacters(in: " \t\n")
                return mode_t(value, radix: 8) ?? 0o022
            }
        }
        return 0o022
    }
}

/// A path's directory and base name.
struct PathParts {
    let directory: String
    let base: String

    init(_ path: String) {
        if let slash = path.lastIndex(of: "/") {
            let dir = String(path[..<slash])
            directory = dir.isEmpty ? "/" : dir
            base = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            base = path
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
