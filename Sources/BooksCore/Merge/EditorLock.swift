/// What an editor left beside the file it edits, parsed: the evidence of which version of the
/// file its buffer was loaded from (see docs/FORMAT.md, "Saves from a stale buffer").
public enum EditorLock: Sendable, Hashable {
    /// A vim swap file (`.books.txt.swp`, `.swo`, …) or a nano `--locking` lock: block 0's fields.
    case swap(SwapFileHeader)
    /// An Emacs lock (`.#books.txt`, a symlink): its target's fields.
    case emacs(EmacsLock)

    /// The names of the files beside `fileName` an editor may leave, strongest first: vim's swap
    /// files (`.swp` down to `.swa`, as vim names them for the first to the sixteenth editor) and
    /// Emacs' lock.
    public static func candidateNames(for fileName: String) -> [String] {
        "ponmlkjihgfedcba".map { ".\(fileName).sw\($0)" } + [".#\(fileName)"]
    }

    /// True when the lock itself names the version its buffer was loaded from (a vim swap file);
    /// false for nano's lock and Emacs' (dated instead by when they were first seen).
    public var namesVersion: Bool {
        if case .swap(let header) = self { return header.namesVersion }
        return false
    }

    /// Who holds the lock: the program, user, host and pid (one editor process, one buffer).
    public var holder: String {
        switch self {
        case .swap(let header): "\(header.program) \(header.user)@\(header.host) \(header.pid)"
        case .emacs(let lock): "emacs \(lock.user)@\(lock.host) \(lock.pid)"
        }
    }
}

/// Block 0 of a vim swap file, or of the vim-format lock nano writes with `--locking`.
///
/// Layout (little-endian): 0 `b0` + the program and version (`VIM 9.0`, `nano 7.2`; 10 bytes);
/// 12 page size; 16 the file's mtime in seconds; 20 the low 32 bits of its inode; 24 the pid; 28
/// the user (40 bytes); 68 the host (40 bytes); 108 the file name.
public struct SwapFileHeader: Sendable, Hashable {
    /// The program and version that wrote it (`VIM 9.0`, `nano 7.2`).
    public var program: String
    /// The edited file's mtime (seconds) when the buffer was loaded; 0 when not recorded (nano).
    public var mtimeSeconds: UInt32
    /// The low 32 bits of the edited file's inode then; 0 when not recorded (nano).
    public var inode: UInt32
    /// The editor's process id.
    public var pid: UInt32
    /// The user and host the editor runs as and on.
    public var user: String
    public var host: String

    /// The size of the fields read (a swap file's block 0 is larger; nano's lock is 1 KiB).
    public static let headerSize = 108

    /// True when it was written by nano (whose lock names no mtime or inode).
    public var isNano: Bool { program.hasPrefix("nano") }

    /// True when it names the version loaded (a vim swap file; not nano's lock).
    public var namesVersion: Bool { mtimeSeconds != 0 || inode != 0 }

    /// Parses block 0; nil when `bytes` is not a vim swap file or nano lock (wrong magic, too short).
    public init?(parsing bytes: [UInt8]) {
        guard bytes.count >= Self.headerSize, bytes[0] == UInt8(ascii: "b"), bytes[1] == UInt8(ascii: "0")
        else { return nil }
        let program = Self.text(bytes, 2, 10)
        guard program.hasPrefix("VIM ") || program.hasPrefix("nano ") else { return nil }
        self.program = program
        mtimeSeconds = Self.uint32(bytes, 16)
        inode = Self.uint32(bytes, 20)
        pid = Self.uint32(bytes, 24)
        user = Self.text(bytes, 28, 40)
        host = Self.text(bytes, 68, 40)
    }

    /// Creates a header from its fields (for tests and tools).
    public init(program: String, mtimeSeconds: UInt32, inode: UInt32, pid: UInt32, user: String, host: String) {
        self.program = program
        self.mtimeSeconds = mtimeSeconds
        self.inode = inode
        self.pid = pid
        self.user = user
        self.host = host
    }

    /// Block 0's bytes for these fields (`size` bytes, zero-filled; vim's page size 4096).
    public func encoded(size: Int = 4096) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(size, Self.headerSize))
        out[0] = UInt8(ascii: "b")
        out[1] = UInt8(ascii: "0")
        Self.put(program, into: &out, at: 2, width: 10)
        Self.put(UInt32(size), into: &out, at: 12)
        Self.put(mtimeSeconds, into: &out, at: 16)
        Self.put(inode, into: &out, at: 20)
        Self.put(pid, into: &out, at: 24)
        Self.put(user, into: &out, at: 28, width: 40)
        Self.put(host, into: &out, at: 68, width: 40)
        return out
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    static func text(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> String {
        let field = bytes[offset..<(offset + width)]
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func put(_ value: UInt32, into out: inout [UInt8], at offset: Int) {
        for k in 0..<4 { out[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    static func put(_ text: String, into out: inout [UInt8], at offset: Int, width: Int) {
        for (k, byte) in text.utf8.prefix(width - 1).enumerated() { out[offset + k] = byte }
    }
}

/// An Emacs lock: the target of the `.#books.txt` symlink, `user@host.pid:boottime`.
public struct EmacsLock: Sendable, Hashable {
    public var user: String
    public var host: String
    public var pid: UInt32
    /// The boot time (seconds since the epoch) after `:`, when present.
    public var bootTime: UInt64?

    /// Parses a lock's target; nil when it does not have the shape `user@host.pid[:boot]`.
    public init?(target: String) {
        guard let at = target.firstIndex(of: "@") else { return nil }
        let rest = target[target.index(after: at)...]
        let hostAndPid = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = hostAndPid.first, let dot = first.lastIndex(of: "."),
            let pid = UInt32(first[first.index(after: dot)...]), !target[..<at].isEmpty
        else { return nil }
        user = String(target[..<at])
        host = String(first[..<dot])
        self.pid = pid
        bootTime = hostAndPid.count > 1 ? UInt64(hostAndPid[1]) : nil
    }
}
