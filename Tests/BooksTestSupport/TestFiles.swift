import CLinux
import Glibc

/// Plain file operations for test set-up and checks (no Foundation): read, write in place,
/// append, replace by rename, and remove a whole tree.
public enum TestFiles {
    /// The whole content of `path` (also `/proc` files), or nil when it cannot be opened.
    public static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            result += chunk[0..<n]
        }
        return result
    }

    /// The content of `path` decoded as UTF-8 (invalid bytes repaired), or nil when unreadable.
    public static func readText(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `bytes` to `path` in place (`open(O_TRUNC)`, `write`, `close`: same inode).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        try writeAll(bytes, to: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: mode)
    }

    /// Writes `text` (UTF-8) to `path` in place.
    public static func write(_ text: String, to path: String, mode: mode_t = 0o644) throws {
        try write(Array(text.utf8), to: path, mode: mode)
    }

    /// Appends `bytes` to `path` (`O_APPEND`, created when missing), as `>>` does.
    public static func append(_ bytes: [UInt8], to path: String) throws {
        try writeAll(bytes, to: path, flags: O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode: 0o644)
    }

    /// Appends `text` (UTF-8) to `path`.
    public static func append(_ text: String, to path: String) throws {
        try append(Array(text.utf8), to: path)
    }

    /// Replaces `path` the way most editors save: a new file beside it, renamed over it.
    public static func replace(_ bytes: [UInt8], at path: String, temporaryName: String? = nil) throws {
        let temporary = temporaryName.map { directoryName(path) + "/" + $0 } ?? path + ".edit-\(getpid())"
        try write(bytes, to: temporary)
        guard rename(temporary, path) == 0 else {
            throw TestSupportError("rename \(temporary) → \(path): \(errorText())")
        }
    }

    /// Whether something (of any type) exists at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether `path` names something this process may execute (`access(X_OK)`).
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Whether `path` is a Unix socket.
    public static func isSocket(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK
    }

    /// The names in directory `path` (without `.` and `..`), sorted.
    public static func names(in path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        while let entry = readdir(dir) {
            let name = String(cString: books_dirent_name(entry))
            if name != "." && name != ".." { result.append(name) }
        }
        return result.sorted()
    }

    /// Removes `path` and, for a directory, everything below it (symbolic links are removed,
    /// never followed). Missing paths are fine.
    public static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o700)  // a test may have made it read-only
            for name in names(in: path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// The directory part of `path` (`.` when there is none).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `strerror(errno)`, for messages.
    public static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    private static func writeAll(_ bytes: [UInt8], to path: String, flags: Int32, mode: mode_t) throws {
        let fd = open(path, flags, mode)
        guard fd >= 0 else { throw TestSupportError("open \(path): \(errorText())") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw TestSupportError("write \(path): \(errorText())") }
            offset += n
        }
    }
}
