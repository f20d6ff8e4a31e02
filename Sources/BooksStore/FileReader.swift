import Glibc

/// Reads the book file safely: never blocks on a FIFO, refuses directories and devices, and
/// bounds the size it reads.
public enum FileReader {
    /// The default limit on the file size: 2 GiB.
    public static let defaultSizeLimit = 2 << 30

    /// Reads `path` completely.
    public static func read(_ path: String, sizeLimit: Int = defaultSizeLimit) -> FileSnapshot {
        withRegularFile(path, sizeLimit: sizeLimit) { fd, size in read(fd, size: size, path: path, sizeLimit: sizeLimit) }
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
        return .present(bytes: bytes, identity: FileIdentity(after))
    }

    /// Opens `path` with `openRegularFile`, runs `body` on the descriptor and the size, closes it.
    static func withRegularFile<Outcome: FileOpeningOutcome>(_ path: String, sizeLimit: Int,
                                                          _ body: (Int32, Int) -> Outcome) -> Outcome {
        switch openRegularFile(path, sizeLimit: sizeLimit) {
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
        case unavailable(StoreError)
    }

    /// Opens `path` for reading without blocking (a FIFO never stalls the reader) and checks that
    /// it is a regular file within `sizeLimit`. The caller closes the descriptor.
    static func openRegularFile(_ path: String, sizeLimit: Int) -> OpenedFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .missing }
            if code == ENXIO { return .unavailable(.notARegularFile(path: path, kind: "socket or FIFO without writer")) }
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
        return .opened(fd: fd, size: size)
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
    static func unavailable(_ error: StoreError) -> Self
}

extension FileSnapshot: FileOpeningOutcome {}
extension FileComparison: FileOpeningOutcome {}
