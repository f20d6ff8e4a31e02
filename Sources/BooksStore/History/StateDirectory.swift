import BooksCore
import Glibc

/// The daemon's state directory, opened safely: created `0700` if missing, refused when it is a
/// symlink, not a directory, not owned by the daemon's user or writable by anyone else. Files are
/// opened relative to it (`openat`) without following symlinks, and read only when they are
/// regular files owned by the daemon's user with a single link — so a planted file is never loaded.
public struct StateDirectory: Sendable {
    /// The directory's path.
    public let path: String
    /// The open directory (kept for the life of the daemon).
    let fd: Int32

    /// Opens (creating if needed) the directory at `path`.
    public static func open(_ path: String) throws(HistoryStoreError) -> StateDirectory {
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw .system(operation: "mkdir", path: path, errno: errno) }
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw .refused(path: path, reason: "not a directory (or a symlink)")
            }
            throw .system(operation: "open", path: path, errno: errno)
        }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            let number = errno
            close(fd)
            throw .system(operation: "fstat", path: path, errno: number)
        }
        if s.st_uid != geteuid() {
            close(fd)
            throw .refused(path: path, reason: "owned by uid \(s.st_uid), not booksd's uid \(geteuid())")
        }
        if s.st_mode & 0o022 != 0 {
            close(fd)
            throw .refused(
                path: path, reason: "writable by group or others (mode \(String(s.st_mode & 0o777, radix: 8)))")
        }
        // One daemon per state directory: a second one would interleave its journal writes.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = lockHolder(fd).map { " (pid \($0))" } ?? ""
            close(fd)
            throw .refused(path: path, reason: "in use by another booksd\(holder) (locked)")
        }
        return StateDirectory(path: path, fd: fd)
    }

    /// Whether another process holds the lock of the state directory at `path`: the holder's pid
    /// (0 when it cannot be found), or nil when the directory is free, missing or not usable. The
    /// probe's own lock, if it got one, is released before this returns.
    public static func lockHolder(of path: String) -> pid_t? {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK else { return nil }
        return lockHolder(fd) ?? 0
    }

    /// The pid holding a `flock` on the open file `fd`, from `/proc/locks`.
    static func lockHolder(_ fd: Int32) -> pid_t? {
        var s = stat()
        guard fstat(fd, &s) == 0, let file = fopen("/proc/locks", "r") else { return nil }
        defer { fclose(file) }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            text += buffer[..<n]
        }
        let dev = UInt64(s.st_dev)
        let major = UInt32(truncatingIfNeeded: (dev >> 8) & 0xfff | (dev >> 32) & ~0xfff)
        let minor = UInt32(truncatingIfNeeded: (dev & 0xff) | (dev >> 12) & ~0xff)
        return lockHolder(
            inLocks: String(decoding: text, as: UTF8.self), major: major, minor: minor, inode: UInt64(s.st_ino))
    }

    /// The pid of the `FLOCK` on device `major:minor`, inode `inode`, in the text of
    /// `/proc/locks` (lines like `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`; waiters, `->`,
    /// are skipped). Pure.
    public static func lockHolder(inLocks text: String, major: UInt32, minor: UInt32, inode: UInt64) -> pid_t? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = pid_t(fields[4]) else { continue }
            let identity = fields[5].split(separator: ":")
            guard identity.count == 3, UInt32(identity[0], radix: 16) == major, UInt32(identity[1], radix: 16) == minor,
                UInt64(identity[2]) == inode
            else { continue }
            return pid
        }
        return nil
    }

    /// The whole content of `name`, or nil when it does not exist.
    /// - Throws: `.refused` for anything but a regular, single-link file of the daemon's user.
    public func read(_ name: String, sizeLimit: Int = 8 << 30) throws(HistoryStoreError) -> [UInt8]? {
        let fd = openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw .refused(path: path + "/" + name, reason: "a symlink") }
            throw .system(operation: "open", path: path + "/" + name, errno: errno)
        }
        defer { close(fd) }
        let size = try checkOwnFile(fd, name: name)
        guard size <= sizeLimit else {
            throw .refused(path: path + "/" + name, reason: "larger than \(sizeLimit) bytes")
        }
        // An empty file is an empty array, not one made with `unsafeUninitializedCapacity: 0`: that
        // writes its count into the shared empty-array storage, a write ThreadSanitizer reports as
        // a race with every other thread reading an empty array.
        guard size > 0 else { return [] }
        var failure: Int32 = 0
        // Not zero-filled first: pread fills it (a file that shrank meanwhile gives a shorter array).
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                done += n
            }
            count = done
        }
        guard failure == 0 else { throw .system(operation: "read", path: path + "/" + name, errno: failure) }
        return bytes
    }

    /// Checks that `fd` is a regular, single-link file of the daemon's user; returns its size.
    func checkOwnFile(_ fd: Int32, name: String) throws(HistoryStoreError) -> Int {
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw .system(operation: "fstat", path: path + "/" + name, errno: errno) }
        let file = path + "/" + name
        guard s.st_mode & S_IFMT == S_IFREG else { throw .refused(path: file, reason: "not a regular file") }
        guard s.st_uid == geteuid() else { throw .refused(path: file, reason: "owned by uid \(s.st_uid)") }
        guard s.st_nlink == 1 else { throw .refused(path: file, reason: "it has \(s.st_nlink) links") }
        guard s.st_mode & 0o022 == 0 else { throw .refused(path: file, reason: "writable by group or others") }
        return Int(s.st_size)
    }

    /// Creates `name` afresh (removing a leftover entry of that name first), `0600`, for writing.
    func create(_ name: String) throws(HistoryStoreError) -> Int32 {
        unlinkat(fd, name, 0)
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw .system(operation: "create", path: path + "/" + name, errno: errno) }
        return file
    }

    /// Opens the existing file `name` for writing in place after the same checks as `read`.
    func openForWriting(_ name: String) throws(HistoryStoreError) -> Int32 {
        let file = openat(fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { throw .system(operation: "open", path: path + "/" + name, errno: errno) }
        do {
            _ = try checkOwnFile(file, name: name)
        } catch {
            close(file)
            throw error
        }
        return file
    }

    /// Renames `from` over `to` inside the directory.
    func rename(_ from: String, over to: String) throws(HistoryStoreError) {
        guard renameat(fd, from, fd, to) == 0 else {
            throw .system(operation: "rename", path: path + "/" + from, errno: errno)
        }
    }

    /// Makes the directory's entries durable.
    func sync() { fsync(fd) }

    /// Writes every byte of `chunks` at `offset` of `file`.
    static func write(_ file: Int32, _ chunks: [[UInt8]], at offset: Int, path: String) throws(HistoryStoreError) {
        var position = offset
        for chunk in chunks {
            var done = 0
            while done < chunk.count {
                let n = chunk.withUnsafeBytes {
                    pwrite(file, $0.baseAddress! + done, chunk.count - done, off_t(position))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw .system(operation: "write", path: path, errno: n < 0 ? errno : EIO) }
                done += n
                position += n
            }
        }
    }
}
