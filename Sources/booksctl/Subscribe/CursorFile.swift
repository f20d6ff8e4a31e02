import Glibc

/// A file that holds one cursor (`EPOCH:SEQ` and a newline), like `journalctl --cursor-file`.
///
/// `save` writes a temporary file with a random name next to it and renames it over the old one, so a reader (or a
/// booksctl killed mid-write) sees the old cursor or the new one, never a torn one.
struct CursorFile: Sendable {
    /// The file's path.
    let path: String

    /// The saved cursor; nil when the file does not exist (the first run). A file that exists but
    /// does not hold a cursor is an error: it is not silently overwritten.
    func load() throws(SubscribeFailure) -> Cursor? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SubscribeFailure(description: "cannot read cursor file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let n = read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.allSatisfy(\.isWhitespace) { return nil }
        guard let cursor = Cursor(parsing: text) else {
            throw SubscribeFailure(
                description: "cursor file \(path) does not hold EPOCH:SEQ (remove it to start afresh)")
        }
        return cursor
    }

    /// Replaces the file's content with `cursor` atomically: a new temporary file with a random
    /// name in the same directory (`mkstemp`: created exclusively, never through a symlink
    /// someone planted, mode 0600), then `rename` over the cursor file.
    func save(_ cursor: Cursor) throws(SubscribeFailure) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else {
            throw SubscribeFailure(description: "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var text = cursor.text + "\n"
        let written = text.withUTF8 { write(fd, $0.baseAddress, $0.count) }
        let ok = written == text.utf8.count
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SubscribeFailure(description: "cannot save cursor to \(path): \(reason)")
        }
    }
}
