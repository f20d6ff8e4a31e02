import BooksCore
import CLinux
import Glibc

/// Appends bytes to the end of a file durably, after proving the file is still the version the
/// caller read — the fast path for inserts into a large file, which would otherwise be rewritten
/// whole.
///
/// Guarantees: the bytes are written with one `O_APPEND` write sequence and `fdatasync`ed; the
/// write happens only when the open file's identity (inode, size, times) is `expected`; after the
/// sync the path must still name the inode written to, else `.changedDuringWrite` (the caller
/// re-reads and retries: the appended bytes went to a file that was replaced meanwhile). A caller
/// must still read the file back and check its rows are there before acknowledging, since a
/// truncating writer may overwrite them right after.
public enum AppendWriter {
    /// Appends `bytes` to `path`, which must still be `expected`. Returns the file's identity after
    /// the append when the file is exactly the expected content plus `bytes` as far as its size and
    /// its tail show (the caller can then skip reading it back), nil when someone else wrote too.
    @discardableResult
    public static func append(
        _ bytes: [UInt8], to path: String, expected: FileIdentity,
        allowSymlink: Bool = false
    ) throws(BookFileError) -> FileIdentity? {
        try append(bytes, to: path, expected: expected, allowSymlink: allowSymlink, writer: { Glibc.write($0, $1, $2) })
    }

    /// `append` with the `write(2)` it uses replaced (tests inject failures with it).
    static func append(
        _ bytes: [UInt8], to path: String, expected: FileIdentity, allowSymlink: Bool = false,
        writer: (Int32, UnsafeRawPointer, Int) -> Int
    ) throws(BookFileError) -> FileIdentity? {
        // A symbolic link at the path is refused unless allowed (then its target is appended to).
        let file = try FileReader.resolveBookPath(path, allowSymlink: allowSymlink).get()
        let fd = Interrupted.retry { open(file, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW) }
        guard fd >= 0 else {
            if errno == ENOENT { throw .changedDuringWrite(path: path) }
            if errno == ELOOP { throw .symlinkRefused(path: path, target: FileReader.linkTarget(file)) }
            throw .system(path: path, operation: "open for append", errno: errno)
        }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw .system(path: path, operation: "fstat", errno: errno) }
        guard before.st_mode & S_IFMT == S_IFREG else {
            throw .notARegularFile(path: path, kind: FileReader.kindName(before.st_mode))
        }
        guard FileIdentity(before) == expected else { throw .changedDuringWrite(path: path) }
        try FileFidelity.checkWritable(before, path: file)  // root too: a 0444 file is read-only
        // The intent record lets a restart cut off an append torn by a crash (a write can be
        // interrupted between two pages): the file appended to, its size before, the bytes.
        let record = AppendIntentRecord(
            device: UInt64(before.st_dev), inode: UInt64(before.st_ino),
            originalSize: Int(before.st_size), payload: bytes)
        let intent = try AppendIntentRecord.write(record, for: path)
        defer { unlink(intent) }
        let (written, failure) = Interrupted.writeAll(fd, bytes, writer: writer)
        if let code = failure {
            // Nothing of a failed append may stay, but nothing another program wrote may go.
            if removeFailedAppend(fd, to: Int(before.st_size), ours: Array(bytes[..<written])) {
                throw .system(path: path, operation: "append to", errno: code)
            }
            throw .appendLeftPartial(path: path, written: written, of: bytes.count, errno: code)
        }
        guard Interrupted.retry({ fdatasync(fd) }) == 0 else {
            // The rows may be in the file but are not durable: never acknowledged, so they must
            // not stay either (a retry would find them, a restart might or might not).
            let code = errno
            if removeFailedAppend(fd, to: Int(before.st_size), ours: bytes) {
                throw .system(path: path, operation: "fdatasync", errno: code)
            }
            throw .appendLeftPartial(path: path, written: written, of: bytes.count, errno: code)
        }
        var now = stat()
        guard stat(path, &now) == 0, now.st_ino == before.st_ino, now.st_dev == before.st_dev else {
            throw .changedDuringWrite(path: path)
        }
        guard Int(now.st_size) == Int(before.st_size) + bytes.count else { return nil }
        // The tail must be exactly what was appended.
        let reader = Interrupted.retry { open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW) }
        guard reader >= 0 else { return nil }
        defer { close(reader) }
        guard let tail = Interrupted.read(reader, count: bytes.count, at: Int(before.st_size)) else { return nil }
        var after = stat()
        guard tail == bytes, fstat(reader, &after) == 0, FileIdentity(after) == FileIdentity(now) else { return nil }
        return FileIdentity(after).placedNow()
    }

    /// `cutBack`, tried a second time when the first attempt failed: an I/O error in the clean-up
    /// itself (opening, reading back or truncating) would otherwise leave the unacknowledged
    /// bytes in the file, where a partial row reads as a book typed by hand. A row another
    /// program appended makes both attempts leave the file alone.
    static func removeFailedAppend(_ fd: Int32, to original: Int, ours: [UInt8]) -> Bool {
        cutBack(fd, to: original, ours: ours) || cutBack(fd, to: original, ours: ours)
    }

    /// After a failed append: cuts the file back to `original` bytes only when it is exactly
    /// `original` bytes plus `ours` (the part of the append that was written), so a row another
    /// process appended at that moment is never cut. Returns whether the file holds nothing of
    /// the append any more. (A writer that appends in the microseconds between the check and the
    /// `ftruncate` can still lose its row: without a lock held by every writer this is the
    /// narrowest the window gets.)
    static func cutBack(_ fd: Int32, to original: Int, ours: [UInt8]) -> Bool {
        if ours.isEmpty { return true }
        var now = stat()
        guard fstat(fd, &now) == 0, Int(now.st_size) == original + ours.count else { return false }
        let reader = Interrupted.retry { open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard reader >= 0 else { return false }
        defer { close(reader) }
        guard let tail = Interrupted.read(reader, count: ours.count, at: original), tail == ours, fstat(fd, &now) == 0,
            Int(now.st_size) == original + ours.count,
            Interrupted.retry({ ftruncate(fd, off_t(original)) }) == 0
        else { return false }
        _ = Interrupted.retry { fdatasync(fd) }
        return true
    }

    /// The intent record's usual path for `path`: `.books.txt.booksd-append-intent` (when another
    /// user holds that name, a record gets a random name beside it: `AppendIntentRecord.write(_:for:)`).
    public static func intentPath(for path: String) -> String {
        let parts = PathParts(path)
        return parts.directory + "/" + AtomicFileWriter.temporaryPrefix(for: path) + "append-intent"
    }

    /// After a crash: when an intent record shows an append that did not complete — the file is
    /// longer than before the append but holds only a prefix of the appended bytes — cuts the
    /// file back to its size before the append. Returns a description of what it did, if anything
    /// (for the log): also when a record was ignored because it cannot be trusted (a symbolic
    /// link, not a regular file, not owned by this user, not mode 0600, a failed self-check, or a
    /// record for another file). Such a record is never followed and is removed. `listing`: the
    /// names in the file's directory the caller listed (see `cleanUpStaleTemporaries`).
    @discardableResult
    public static func recover(path: String, listing: [String]? = nil) -> String? {
        let intent = intentPath(for: path)
        let found = intentTemporaries(beside: path, listing: listing)
        var notes: [String] = []
        var removed: [String] = []
        // A record under a random name was written because another user holds the usual name:
        // it is complete (synced before the append began) and is used like the usual one.
        for name in found.own {
            let candidate = PathParts(path).directory + "/" + name
            if case .success(let record) = AppendIntentRecord.readTrusted(at: candidate) {
                notes.append(contentsOf: cutTornAppend(record, path: path, intent: candidate).map { [$0] } ?? [])
            }
            if unlink(candidate) == 0 { removed.append(name) }
        }
        if !removed.isEmpty {
            notes.append("removed append intent records and unfinished ones: \(removed.joined(separator: ", "))")
        }
        if !found.foreign.isEmpty {
            notes.append(
                "left alone files named like booksd's append intent records that another user owns: "
                    + found.foreign.joined(separator: ", "))
        }
        switch AppendIntentRecord.readTrusted(at: intent) {
        case nil:
            break
        case .failure(let problem):
            var s = stat()
            let foreign = lstat(intent, &s) == 0 && s.st_uid != geteuid()
            if !foreign, unlink(intent) == 0 {
                notes.append("ignored and removed the append intent record \(intent): \(problem)")
            } else {
                notes.append(
                    "left alone \(intent), which booksd may not remove (\(problem)): appends write their intent "
                        + "record under a random name beside it")
            }
        case .success(let record):
            notes.append(contentsOf: cutTornAppend(record, path: path, intent: intent).map { [$0] } ?? [])
            unlink(intent)
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// Cuts the torn append `record` describes off `path`, if the file is that file and holds a
    /// torn prefix of the payload.
    static func cutTornAppend(_ record: AppendIntentRecord, path: String, intent: String) -> String? {
        let fd = Interrupted.retry { open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { return nil }
        guard UInt64(s.st_dev) == record.device, UInt64(s.st_ino) == record.inode else {
            return "ignored the append intent record \(intent): it is for another file (inode \(record.inode), "
                + "the book file is inode \(s.st_ino))"
        }
        let size = Int(s.st_size)
        let original = record.originalSize
        guard size > original, size < original + record.payload.count else { return nil }
        guard let tail = Interrupted.read(fd, count: size - original, at: original),
            record.payload.starts(with: tail)
        else { return nil }
        guard Interrupted.retry({ ftruncate(fd, off_t(original)) }) == 0 else { return nil }
        _ = Interrupted.retry { fsync(fd) }
        return "cut off \(tail.count) bytes of an append interrupted by a crash"
    }

    /// The files named like an intent record's temporary (`.books.txt.booksd-append-intent-XXXXXX`:
    /// one a killed `AppendIntentRecord.write` left, or a record written under a random name):
    /// booksd's own (its user's), and others (`name (uid N)`), which are never touched.
    static func intentTemporaries(beside path: String, listing: [String]? = nil) -> (own: [String], foreign: [String]) {
        let parts = PathParts(path)
        let prefix = PathParts(intentPath(for: path)).base + "-"
        var names: [String] = listing ?? []
        if listing == nil {
            guard let dir = opendir(parts.directory) else { return ([], []) }
            while let entry = readdir(dir) { names.append(String(cString: books_dirent_name(entry))) }
            closedir(dir)
        }
        var found: (own: [String], foreign: [String]) = ([], [])
        for name in names.sorted() where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
            var s = stat()
            guard lstat(parts.directory + "/" + name, &s) == 0 else { continue }
            if s.st_uid == geteuid() {
                found.own.append(name)
            } else {
                found.foreign.append("\(name) (uid \(s.st_uid))")
            }
        }
        return found
    }
}
