import BooksCore
import Glibc

/// The record `AppendWriter` leaves beside the book file while it appends
/// (`.books.txt.booksd-append-intent`), so that a restart after a crash can cut off a torn append.
///
/// Layout: one header line `booksd-append-intent 1 <device> <inode> <size> <length> <check>`, then
/// the `length` bytes being appended. `device`/`inode` name the book file appended to, `size` is
/// its size before the append, `check` is the FNV-1a 64 hash (16 hex digits) of the header up to
/// and including `<length>` followed by the payload. A record is only trusted when it is a regular
/// file (never a symbolic link), owned by the daemon's effective user, mode 0600, with one link,
/// and its check matches: a planted or damaged record is ignored and removed.
struct AppendIntentRecord: Equatable {
    static let magic = "booksd-append-intent 1"
    /// The most a record may hold: the largest payload `appendIfPossible` appends plus a header.
    static let maximumSize = (1 << 20) + 4096

    var device: UInt64
    var inode: UInt64
    var originalSize: Int
    var payload: [UInt8]

    /// The bytes of the record.
    var encoded: [UInt8] {
        let fields = "\(Self.magic) \(device) \(inode) \(originalSize) \(payload.count)"
        var out = Array(fields.utf8)
        let check = Self.fnv1a(Array(fields.utf8) + payload)
        out.append(contentsOf: Array(" \(Self.hex(check))\n".utf8))
        out.append(contentsOf: payload)
        return out
    }

    /// Parses and checks `bytes`; nil with the reason in `problem` when they are not a valid record.
    static func decode(_ bytes: [UInt8]) -> Result<AppendIntentRecord, IntentProblem> {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return .failure(.malformed("no header line")) }
        let header = String(decoding: bytes[..<newline], as: UTF8.self)
        guard header.hasPrefix(magic + " ") else {
            return .failure(.malformed("no booksd header (planted or old record)"))
        }
        let fields = header.dropFirst(magic.count + 1).split(separator: " ").map(String.init)
        guard fields.count == 5, let device = UInt64(fields[0]), let inode = UInt64(fields[1]),
            let size = Int(fields[2]), size >= 0, let length = Int(fields[3]), length >= 0,
            let check = UInt64(fields[4], radix: 16)
        else { return .failure(.malformed("unreadable header")) }
        let payload = Array(bytes[(newline + 1)...])
        guard payload.count == length else {
            return .failure(.malformed("payload is \(payload.count) bytes, the header says \(length)"))
        }
        let checked = Array("\(magic) \(device) \(inode) \(size) \(length)".utf8) + payload
        guard fnv1a(checked) == check else { return .failure(.malformed("checksum mismatch")) }
        return .success(AppendIntentRecord(device: device, inode: inode, originalSize: size, payload: payload))
    }

    /// Writes the record at `path` without following anything planted there: a new file
    /// (`mkstemp`, mode 0600) beside it, `fdatasync`ed, then `rename` over `path` (which replaces
    /// a symlink or file at `path` itself, never its target).
    static func write(_ record: AppendIntentRecord, at path: String) throws(BookFileError) {
        let parts = PathParts(path)
        let (fd, temporary) = Interrupted.makeTemporary(path + "-XXXXXX")
        guard fd >= 0 else {
            throw .system(path: parts.directory, operation: "create append intent record in", errno: errno)
        }
        let bytes = record.encoded
        var failure: (String, Int32)?
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if fchmod(fd, 0o600) != 0 {
            failure = ("chmod", errno)
        } else if Interrupted.writeAll(fd, bytes).failure != nil {
            failure = ("write", errno)
        } else if Interrupted.retry({ fdatasync(fd) }) != 0 {
            // The record's content must be durable before any of the append can be: a power cut
            // may persist part of the append (a page) without the record's unsynced data, which
            // would leave a torn row or half a batch that start-up cannot cut off (the
            // crash states of the append path, docs/RELIABILITY.md "Power cuts").
            failure = ("fdatasync", errno)
        }
        close(fd)
        if failure == nil, Interrupted.retry({ rename(temporary, path) }) != 0 {
            failure = ("rename into place", errno)
        }
        if let (operation, code) = failure {
            unlink(temporary)  // e.g. ENOSPC: never leave a partial intent record behind
            throw .system(path: path, operation: "\(operation) append intent record", errno: code)
        }
        // Ordering on ext4 (data=ordered): the fdatasync above commits the record's creation and
        // content; the rename is journaled before the append's size update (which is journaled
        // at write-back, after the append was issued), so a state with any of the append holds
        // the whole record; the append's own fdatasync commits the rename. The directory is not
        // synced separately (one journal commit less per insert).
    }

    /// Writes the record for an append to `book` at its usual path (`AppendWriter.intentPath`);
    /// when that name is held by something booksd cannot replace (another user's file or
    /// directory in a sticky folder), under a new random name beside it instead (`mkstemp`,
    /// which nobody can pre-create), found by `AppendWriter.recover` like the usual one.
    /// Returns the record's path (the caller removes it after the append).
    static func write(_ record: AppendIntentRecord, for book: String) throws(BookFileError) -> String {
        let usual = AppendWriter.intentPath(for: book)
        var s = stat()
        // Another user's entry is never replaced (not even by root): it is left alone.
        if lstat(usual, &s) == 0, s.st_uid != geteuid() { return try writeUnique(record, prefix: usual + "-") }
        do {
            try write(record, at: usual)
            return usual
        } catch {
            guard lstat(usual, &s) == 0, s.st_mode & S_IFMT == S_IFDIR else { throw error }
            return try writeUnique(record, prefix: usual + "-")
        }
    }

    /// Writes the record to a new file `prefix` + six random characters (mode 0600, synced) and
    /// returns its path.
    static func writeUnique(_ record: AppendIntentRecord, prefix: String) throws(BookFileError) -> String {
        let (fd, path) = Interrupted.makeTemporary(prefix + "XXXXXX")
        guard fd >= 0 else {
            throw .system(path: PathParts(prefix).directory, operation: "create append intent record in", errno: errno)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var failure: (String, Int32)?
        if fchmod(fd, 0o600) != 0 {
            failure = ("chmod", errno)
        } else if Interrupted.writeAll(fd, record.encoded).failure != nil {
            failure = ("write", errno)
        } else if Interrupted.retry({ fdatasync(fd) }) != 0 {
            failure = ("fdatasync", errno)  // durable before the append, as in `write(_:at:)`
        }
        close(fd)
        if let (operation, code) = failure {
            unlink(path)
            throw .system(path: path, operation: "\(operation) append intent record", errno: code)
        }
        // Its directory entry is journaled before the append's size update (see `write(_:at:)`).
        return path
    }

    /// Reads the record at `path` without following a symlink and checks that it can be trusted.
    static func readTrusted(at path: String) -> Result<AppendIntentRecord, IntentProblem>? {
        let fd = Interrupted.retry { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        if fd < 0 {
            switch errno {
            case ENOENT, ENOTDIR: return nil
            case ELOOP: return .failure(.untrusted("it is a symbolic link"))
            case let code: return .failure(.untrusted("it cannot be opened: \(String(cString: strerror(code)))"))
            }
        }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            return .failure(.untrusted("fstat failed: \(String(cString: strerror(errno)))"))
        }
        guard s.st_mode & S_IFMT == S_IFREG else {
            return .failure(.untrusted("it is a \(FileReader.kindName(s.st_mode)), not a regular file"))
        }
        guard s.st_uid == geteuid() else {
            return .failure(.untrusted("it is owned by uid \(s.st_uid), not \(geteuid())"))
        }
        guard s.st_mode & 0o7777 == 0o600 else {
            return .failure(.untrusted("its mode is \(String(s.st_mode & 0o7777, radix: 8)), not 600"))
        }
        guard s.st_nlink == 1 else { return .failure(.untrusted("it has \(s.st_nlink) hard links")) }
        guard Int(s.st_size) <= maximumSize else { return .failure(.untrusted("it is \(s.st_size) bytes, too large")) }
        guard
            case .present(let bytes, _) = FileReader.read(fd, size: Int(s.st_size), path: path, sizeLimit: maximumSize)
        else {
            return .failure(.untrusted("it cannot be read"))
        }
        return decode(bytes)
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Why an intent record found at start is not used.
enum IntentProblem: Error, Equatable, CustomStringConvertible {
    /// The file is not one the daemon wrote (symlink, other owner, mode, links).
    case untrusted(String)
    /// The content is not a valid record.
    case malformed(String)

    var description: String {
        switch self {
        case .untrusted(let why): return why
        case .malformed(let why): return "its content is not a valid record (\(why))"
        }
    }
}
