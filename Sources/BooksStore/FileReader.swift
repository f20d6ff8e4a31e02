import BooksCore
import Glibc

/// Reads the book file safely: never blocks on a FIFO, refuses directories and devices, and
/// bounds the size it reads.
public enum FileReader {
    /// The default limit on the file size: 2 GiB.
    public static let defaultSizeLimit = 2 << 30

    /// Reads `path` completely. A symbolic link at `path` is refused (`.symlinkRefused`) unless
    /// `allowSymlink` and the link is owned by the process's effective user (`resolveBookPath`).
    public static func read(
        _ path: String, sizeLimit: Int = defaultSizeLimit, allowSymlink: Bool = false
    ) -> FileSnapshot {
        withRegularFile(path, sizeLimit: sizeLimit, allowSymlink: allowSymlink) { fd, size in
            read(fd, size: size, path: path, sizeLimit: sizeLimit)
        }
    }

    /// The path to open for the book file `path`: `path` itself when it is not a symbolic link;
    /// for a link, its resolved target when `allowSymlink` and the link is owned by the effective
    /// user (another user's link could point the daemon at any file it may write), else
    /// `.symlinkRefused` / `.symlinkNotOwned`. Open the result with `O_NOFOLLOW`.
    public static func resolveBookPath(_ path: String, allowSymlink: Bool) -> Result<String, BookFileError> {
        var s = stat()
        guard lstat(path, &s) == 0, s.st_mode & S_IFMT == S_IFLNK else { return .success(path) }
        let target = linkTarget(path)
        guard allowSymlink else { return .failure(.symlinkRefused(path: path, target: target)) }
        guard s.st_uid == geteuid() else {
            return .failure(.symlinkNotOwned(path: path, target: target, owner: s.st_uid))
        }
        guard let real = realpath(path, nil) else { return .success(path) }  // dangling: opening says ELOOP
        defer { free(real) }
        return .success(String(cString: real))
    }

    /// What the symbolic link `path` points to, as written in the link.
    static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { return "?" }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads the open file `fd` of `size` bytes (at the time it was opened) to its end.
    static func read(_ fd: Int32, size: Int, path: String, sizeLimit: Int) -> FileSnapshot {
        // Read exactly the size seen, then probe for more: a writer may still be appending.
        // Filled by read(2) directly: no zeroing pass over a buffer that is about to be overwritten.
        // The capacity has 1/8 headroom (address space only: untouched pages cost no memory), so
        // the document can take appends in place without copying the whole file to grow.
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: size + max(size / 8, 4096)) { buffer, initialized in
            var total = 0
            while total < size {
                let n = Glibc.read(fd, buffer.baseAddress! + total, size - total)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if n == 0 { break }
                total += n
            }
            initialized = total
        }
        if failure != 0 { return .unavailable(.system(path: path, operation: "read", errno: failure)) }
        var total = bytes.count
        var chunk = [UInt8](repeating: 0, count: 65536)
        while total == bytes.count {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .unavailable(.system(path: path, operation: "read", errno: errno))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            total += n
            guard total <= sizeLimit else { return .unavailable(.tooLarge(path: path, size: total, limit: sizeLimit)) }
        }
        var after = stat()
        fstat(fd, &after)
        return .present(bytes: bytes, identity: FileIdentity(after).withBirthTime(of: fd))
    }

    /// Opens `path` with `openRegularFile`, runs `body` on the descriptor and the size, closes it.
    static func withRegularFile<Outcome: FileOpeningOutcome>(
        _ path: String, sizeLimit: Int, allowSymlink: Bool,
        _ body: (Int32, Int) -> Outcome
    ) -> Outcome {
        switch openRegularFile(path, sizeLimit: sizeLimit, allowSymlink: allowSymlink) {
        case .opened(let fd, let size):
            defer { close(fd) }
            return body(fd, size)
        case .missing: return .missing
        case .unavailable(let error): return .unavailable(error)
        }
    }

    /// What opening the file found.
    enum OpenedFile {
        case opened(fd: Int32, size: Int)
        case missing
        case unavailable(BookFileError)
    }

    /// Opens `path` for reading without blocking (a FIFO never stalls the reader) and checks that
    /// it is a regular file within `sizeLimit`. The caller closes the descriptor.
    static func openRegularFile(_ path: String, sizeLimit: Int, allowSymlink: Bool) -> OpenedFile {
        let resolved: String
        switch resolveBookPath(path, allowSymlink: allowSymlink) {
        case .success(let real): resolved = real
        case .failure(let error): return .unavailable(error)
        }
        let fd = Interrupted.retry { open(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW) }
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .missing }
            if code == ELOOP { return .unavailable(.symlinkRefused(path: path, target: linkTarget(resolved))) }
            if code == ENXIO {
                return .unavailable(.notARegularFile(path: path, kind: "socket or FIFO without writer"))
            }
            return .unavailable(.system(path: path, operation: "open", errno: code))
        }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            let code = errno
            close(fd)
            return .unavailable(.system(path: path, operation: "fstat", errno: code))
        }
        guard s.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .unavailable(.notARegularFile(path: path, kind: kindName(s.st_mode)))
        }
        let size = Int(s.st_size)
        guard size <= sizeLimit else {
            close(fd)
            return .unavailable(.tooLarge(path: path, size: size, limit: sizeLimit))
        }
        if let problem = binaryContent(fd, size: size) {
            close(fd)
            return .unavailable(.invalidContent(path: path, detail: problem))
        }
        return .opened(fd: fd, size: size)
    }

    /// How many leading bytes `binaryContent` looks at.
    public static let binaryProbeBytes = 4096

    /// Why the open file `fd` of `size` bytes is not a text book list, found without reading it
    /// whole: it has a hole (a sparse file, e.g. `truncate -s 1G`, reads as NUL bytes and costs
    /// its creator no disk), or its first ``binaryProbeBytes`` (all of it, when smaller) are NUL
    /// bytes. Nil for a text file — also one with a NUL byte in a row (a client may write a name
    /// holding one), which is read as before.
    /// Costs two `lseek`s (the offset is left at 0) and one `pread` of at most 4 KiB.
    static func binaryContent(_ fd: Int32, size: Int) -> String? {
        guard size > 0 else { return nil }
        let seekHole: Int32 = 4  // SEEK_HOLE on Linux; Glibc does not import it (a _GNU_SOURCE name)
        let hole = lseek(fd, 0, seekHole)
        _ = lseek(fd, 0, SEEK_SET)  // SEEK_HOLE moved the offset: the reader starts at 0
        if hole >= 0, hole < size {
            return "it is a sparse file (\(size) bytes, a hole at byte \(hole)): a hole reads as NUL bytes, "
                + "so it is not a book list and is not read (rewrite it as text to serve it)"
        }
        let count = min(size, binaryProbeBytes)
        var probe = [UInt8](repeating: 1, count: count)
        let n = probe.withUnsafeMutableBytes { buffer in Interrupted.retry { pread(fd, buffer.baseAddress, count, 0) } }
        guard n > 0, probe[..<n].allSatisfy({ $0 == 0 }) else { return nil }
        return "it begins with \(n) NUL bytes (a zero-filled file): not a book list, so it is not read "
            + "(rewrite it as text to serve it)"
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "directory"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFLNK: return "symbolic link"
        default: return "special file"
        }
    }
}

/// A reader's result type that can say the file is missing or unavailable (`FileSnapshot`,
/// `FileComparison`).
protocol FileOpeningOutcome {
    static var missing: Self { get }
    static func unavailable(_ error: BookFileError) -> Self
}

extension FileSnapshot: FileOpeningOutcome {}
extension FileComparison: FileOpeningOutcome {}
