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
    /// Appends `bytes` to `path`, which must still be `expected`.
    public static func append(_ bytes: [UInt8], to path: String, expected: FileIdentity) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { throw .changedDuringWrite(path: path) }
            throw .system(path: path, operation: "open for append", errno: errno)
        }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw .system(path: path, operation: "fstat", errno: errno) }
        guard before.st_mode & S_IFMT == S_IFREG else {
            throw .notARegularFile(path: path, kind: FileReader.kindName(before.st_mode))
        }
        guard FileIdentity(before) == expected else { throw .changedDuringWrite(path: path) }
        // The intent record lets a restart cut off an append torn by a crash (a write can be
        // interrupted between two pages): the original size, then the bytes being appended.
        let intent = intentPath(for: path)
        var record = Array("\(before.st_size)\n".utf8)
        record.append(contentsOf: bytes)
        guard writeWhole(record, to: intent) else {
            let code = errno
            unlink(intent)   // e.g. ENOSPC: never leave a partial intent record behind
            throw .system(path: intent, operation: "write", errno: code)
        }
        defer { unlink(intent) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                // Nothing of a failed append may stay: cut the file back to its size before.
                _ = ftruncate(fd, before.st_size)
                throw .system(path: path, operation: "append to", errno: code)
            }
            written += n
        }
        guard fdatasync(fd) == 0 else { throw .system(path: path, operation: "fdatasync", errno: errno) }
        var now = stat()
        guard stat(path, &now) == 0, now.st_ino == before.st_ino, now.st_dev == before.st_dev else {
            throw .changedDuringWrite(path: path)
        }
    }

    /// The intent record's path for `path`: `.books.txt.booksd-append-intent`.
    public static func intentPath(for path: String) -> String {
        let parts = PathParts(path)
        return parts.directory + "/" + AtomicFileWriter.temporaryPrefix(for: path) + "append-intent"
    }

    /// After a crash: when an intent record shows an append that did not complete — the file is
    /// longer than before the append but holds only a prefix of the appended bytes — cuts the
    /// file back to its size before the append. Returns a description of what it did, if anything.
    @discardableResult
    public static func recover(path: String) -> String? {
        let intent = intentPath(for: path)
        guard case .present(let record, _) = FileReader.read(intent) else { return nil }
        defer { unlink(intent) }
        guard let newline = record.firstIndex(of: 0x0A),
              let original = Int(String(decoding: record[..<newline], as: UTF8.self)) else { return nil }
        let payload = Array(record[(newline + 1)...])
        guard case .present(let content, _) = FileReader.read(path), content.count > original,
              content.count < original + payload.count else { return nil }
        let tail = content[original...]
        guard payload.starts(with: tail) else { return nil }
        guard truncate(path, off_t(original)) == 0 else { return nil }
        return "cut off \(tail.count) bytes of an append interrupted by a crash"
    }

    static func writeWhole(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 { if errno == EINTR { continue }; return false }
            written += n
        }
        return true
    }
}
