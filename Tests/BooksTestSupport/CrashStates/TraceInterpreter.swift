/// Turns traced calls into `FileOperation`s on one directory (`root`), resolving descriptors
/// and names to the model's inodes, starting from `initial` (whose inodes the recording's
/// first `stat`s identify). Calls outside `root` are dropped, except socket sends, which become
/// `output` markers labelled by `marker`; an `output` whose label `injected` names is followed by
/// those edits (changes another process made, see `InjectedEdit`). A shared writable `mmap` of a
/// recorded file is remembered so that its `msync` is a `sync` of the file (the stores into the
/// mapping themselves cannot be seen). Pure: no I/O.
public struct TraceInterpreter {
    /// The recorded directory (absolute, no trailing slash).
    public var root: String
    /// Labels a socket send (e.g. the id of an acknowledged write), nil for other output.
    public var marker: ([UInt8]) -> String?
    /// The traced process's umask (applied to `O_CREAT` modes).
    public var umask: UInt32
    /// Edits made by another process right after the output marker with that label.
    public var injected: [String: [InjectedEdit]]

    struct Descriptor {
        var inode: Int?
        var directory: String?
        var append: Bool
        var offset: Int
    }

    var live: DirectoryImage
    private var descriptors: [Int: Descriptor] = [:]
    var nextInode: Int
    /// Shared writable mappings of recorded files: start address → inode.
    var mappings: [UInt64: Int] = [:]
    private var operations: [FileOperation] = []
    private var identities: [Int: RealFileIdentity] = [:]

    /// An interpreter for `root`, whose content before the first call is `initial`.
    public init(
        root: String, initial: DirectoryImage, umask: UInt32 = 0o022,
        injected: [String: [InjectedEdit]] = [:], marker: @escaping ([UInt8]) -> String?
    ) {
        self.root = root
        self.marker = marker
        self.umask = umask
        self.injected = injected
        live = initial
        nextInode = (initial.files.keys.max() ?? 0) + 1
    }

    /// The operations of `calls` (in completion order).
    public static func operations(
        of calls: [StraceCall], root: String, initial: DirectoryImage, umask: UInt32 = 0o022,
        injected: [String: [InjectedEdit]] = [:], marker: @escaping ([UInt8]) -> String?
    ) throws(StraceError) -> RecordedOperations {
        var interpreter = TraceInterpreter(
            root: root, initial: initial, umask: umask, injected: injected, marker: marker)
        for call in calls { try interpreter.apply(call) }
        return RecordedOperations(operations: interpreter.operations, realIdentities: interpreter.identities)
    }

    /// The name of `path` inside `root` ("" for `root` itself), nil outside.
    func name(_ path: String) -> String? {
        if path == root { return "" }
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }

    /// The path of a `dirfd, "path"` argument pair.
    func path(directory: String, _ pathArgument: String) throws(StraceError) -> String {
        let path = String(decoding: try StraceParser.bytes(ofString: pathArgument), as: UTF8.self)
        if path.hasPrefix("/") { return path }
        let base = try StraceParser.descriptor(directory).path ?? ""
        return base + "/" + path
    }

    mutating func emit(_ operation: FileOperation) {
        operations.append(operation)
        if operation.isMetadata { live.applyMetadata(operation) }
        if case .write(let inode, let offset, let bytes) = operation {
            live.applyWrite(inode: inode, offset: offset, bytes: bytes)
        }
    }

    /// Applies one call.
    public mutating func apply(_ call: StraceCall) throws(StraceError) {
        guard call.succeeded else { return }
        let a = call.arguments
        switch call.name {
        case "openat" where a.count >= 3:
            try opened(path: path(directory: a[0], a[1]), flags: a[2], mode: a.count > 3 ? a[3] : nil, call: call)
        case "open" where a.count >= 2:
            try opened(path: path(directory: "AT_FDCWD", a[0]), flags: a[1], mode: a.count > 2 ? a[2] : nil, call: call)
        case "creat" where a.count >= 2:
            try opened(
                path: path(directory: "AT_FDCWD", a[0]), flags: "O_WRONLY|O_CREAT|O_TRUNC", mode: a[1], call: call)
        case "write" where a.count >= 2, "pwrite64" where a.count >= 4:
            try wrote(call)
        case "sendto" where a.count >= 2:
            try sent(a[0], [try StraceParser.bytes(ofString: a[1]).prefix(call.returnValue ?? 0)])
        case "sendmsg" where a.count >= 2:
            var parts: [ArraySlice<UInt8>] = []
            for string in Self.iovecStrings(a[1]) { parts.append(try StraceParser.bytes(ofString: string)[...]) }
            try sent(a[0], parts)
        case "ftruncate" where a.count >= 2:
            if let inode = try descriptor(a[0])?.inode, let size = Int(a[1]) {
                emit(.truncate(inode: inode, size: size))
            }
        case "fsync", "fdatasync":
            guard let d = try descriptor(a[0]) else { return }
            if let inode = d.inode {
                emit(.sync(inode: inode, dataOnly: call.name == "fdatasync"))
            } else if let directory = d.directory {
                emit(.syncDirectory(name: directory))
            }
        case "rename" where a.count >= 2:
            try renamed(path(directory: "AT_FDCWD", a[0]), path(directory: "AT_FDCWD", a[1]), flags: "")
        case "renameat" where a.count >= 4, "renameat2" where a.count >= 4:
            try renamed(path(directory: a[0], a[1]), path(directory: a[2], a[3]), flags: a.count > 4 ? a[4] : "")
        case "unlink" where a.count >= 1:
            try unlinked(path(directory: "AT_FDCWD", a[0]), flags: "")
        case "unlinkat" where a.count >= 2:
            try unlinked(path(directory: a[0], a[1]), flags: a.count > 2 ? a[2] : "")
        case "link" where a.count >= 2:
            try linked(path(directory: "AT_FDCWD", a[0]), path(directory: "AT_FDCWD", a[1]))
        case "linkat" where a.count >= 4:
            try linked(path(directory: a[0], a[1]), path(directory: a[2], a[3]))
        case "mkdir" where a.count >= 1:
            if let name = name(try path(directory: "AT_FDCWD", a[0])) { emit(.makeDirectory(name: name)) }
        case "mkdirat" where a.count >= 2:
            if let name = name(try path(directory: a[0], a[1])) { emit(.makeDirectory(name: name)) }
        case "fchmod" where a.count >= 2:
            if let inode = try descriptor(a[0])?.inode {
                emit(.setAttributes(inode: inode, mode: UInt32(a[1], radix: 8)))
            }
        case "fchown", "fsetxattr", "fremovexattr":
            if let inode = try descriptor(a[0])?.inode { emit(.setAttributes(inode: inode, mode: nil)) }
        case "close":
            if let fd = try? StraceParser.descriptor(a[0]).fd { descriptors[fd] = nil }
        case "dup", "dup2", "dup3":
            if let old = try? StraceParser.descriptor(a[0]).fd, let new = call.returnValue {
                descriptors[new] = descriptors[old]
            }
        case "newfstatat", "fstat", "statx":
            try stated(call)
        case "mmap" where a.count >= 5:
            try mapped(call)
        case "msync" where a.count >= 1:
            msynced(call)
        case "truncate" where a.count >= 2:
            if let name = name(try path(directory: "AT_FDCWD", a[0])), let inode = live.names[name],
                let size = Int(a[1])
            {
                emit(.truncate(inode: inode, size: size))
            }
        case "writev", "pwritev", "pwritev2", "fallocate", "copy_file_range", "sendfile":
            // Calls the model does not interpret: refuse to give states for a file they changed.
            if let d = try? descriptor(a[0]), d.inode != nil {
                throw StraceError("\(call.name) on a recorded file is not modelled: \(a[0].prefix(80))")
            }
        default:
            return
        }
    }

    func descriptor(_ argument: String) throws(StraceError) -> Descriptor? {
        descriptors[try StraceParser.descriptor(argument).fd]
    }

    mutating func opened(path: String, flags: String, mode: String?, call: StraceCall) throws(StraceError) {
        guard let fd = call.returnValue, let name = name(path) else { return }
        if name.isEmpty || live.directories.contains(name) || flags.contains("O_DIRECTORY") {
            descriptors[fd] = Descriptor(inode: nil, directory: name, append: false, offset: 0)
            return
        }
        let inode: Int
        if let existing = live.names[name] {
            inode = existing
            let writable = flags.contains("O_WRONLY") || flags.contains("O_RDWR")
            if flags.contains("O_TRUNC"), writable, (live.files[inode]?.bytes.count ?? 0) > 0 {
                emit(.truncate(inode: inode, size: 0))
            }
        } else if flags.contains("O_CREAT") {
            inode = nextInode
            nextInode += 1
            let requested = mode.flatMap { UInt32($0, radix: 8) } ?? 0o666
            emit(.create(name: name, inode: inode, mode: requested & ~umask & 0o7777))
        } else {
            return  // a file the image does not know (made before the recording began)
        }
        descriptors[fd] = Descriptor(inode: inode, directory: nil, append: flags.contains("O_APPEND"), offset: 0)
    }

    mutating func wrote(_ call: StraceCall) throws(StraceError) {
        let fdArgument = call.arguments[0]
        guard let count = call.returnValue else { return }
        let data = Array(try StraceParser.bytes(ofString: call.arguments[1]).prefix(count))
        let fd = try StraceParser.descriptor(fdArgument).fd
        guard var d = descriptors[fd], let inode = d.inode else {
            try sent(fdArgument, [data[...]])
            return
        }
        let offset: Int
        if call.name == "pwrite64" {
            guard let at = Int(call.arguments[3]) else { throw StraceError("pwrite64 offset: \(call.arguments[3])") }
            offset = at
        } else {
            offset = d.append ? (live.files[inode]?.bytes.count ?? 0) : d.offset
            d.offset = offset + data.count
            descriptors[fd] = d
        }
        emit(.write(inode: inode, offset: offset, bytes: data))
    }

    mutating func sent(_ fdArgument: String, _ parts: [ArraySlice<UInt8>]) throws(StraceError) {
        guard try StraceParser.descriptor(fdArgument).path?.hasPrefix("socket:") == true else { return }
        let label = marker(Array(parts.joined()))
        emit(.output(label: label))
        if let label, let edits = injected[label] {
            for edit in edits { inject(edit) }
        }
    }

    mutating func renamed(_ from: String, _ to: String, flags: String) throws(StraceError) {
        switch (name(from), name(to)) {
        case (let a?, let b?):
            emit(flags.contains("RENAME_EXCHANGE") ? .exchange(a, b) : .rename(from: a, to: b))
        case (let a?, nil):
            if live.names[a] != nil { emit(.unlink(name: a)) }  // moved out of the directory
        case (nil, _?):
            throw StraceError("a file was moved into the recorded directory from outside: \(from) → \(to)")
        case (nil, nil):
            return
        }
    }

    mutating func unlinked(_ path: String, flags: String) throws(StraceError) {
        guard let name = name(path), !flags.contains("AT_REMOVEDIR"), live.names[name] != nil else { return }
        emit(.unlink(name: name))
    }

    mutating func linked(_ from: String, _ to: String) throws(StraceError) {
        guard let source = name(from), let target = name(to), let inode = live.names[source] else { return }
        emit(.link(name: target, inode: inode))
    }

    /// Notes the real identity of the model inode a `stat` call looked at.
    mutating func stated(_ call: StraceCall) throws(StraceError) {
        guard let structure = call.arguments.first(where: { $0.hasPrefix("{") }),
            let identity = Self.identity(in: structure)
        else { return }
        var inode: Int?
        let first = call.arguments[0]
        let pathArgument = call.arguments.count > 1 ? call.arguments[1] : ""
        if call.name == "fstat" || pathArgument == "\"\"" {
            inode = try descriptor(first)?.inode
        } else if pathArgument.hasPrefix("\""), let name = name(try path(directory: first, pathArgument)) {
            inode = live.names[name]
        }
        if let inode { identities[inode] = identity }
    }

    /// `st_dev=makedev(0xfe, 0), st_ino=974865` (stat) or `stx_ino=…, stx_dev_major=…, stx_dev_minor=…`.
    static func identity(in structure: String) -> RealFileIdentity? {
        func field(_ key: String) -> Substring? {
            guard let range = structure.firstRange(of: key) else { return nil }
            return structure[range.upperBound...].prefix { $0 != "," && $0 != "}" && $0 != ")" }
        }
        func number(_ text: Substring?) -> UInt64? {
            guard let text = text.map({ String($0).trimmingSpaces() }) else { return nil }
            return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        }
        if let ino = number(field("st_ino=")), let dev = structure.firstRange(of: "st_dev=makedev(") {
            let parts = structure[dev.upperBound...].prefix { $0 != ")" }.split(separator: ",")
            guard parts.count == 2, let major = number(parts[0]), let minor = number(parts[1]) else { return nil }
            return RealFileIdentity(device: makeDevice(major, minor), inode: ino)
        }
        if let ino = number(field("stx_ino=")), let major = number(field("stx_dev_major=")),
            let minor = number(field("stx_dev_minor="))
        {
            return RealFileIdentity(device: makeDevice(major, minor), inode: ino)
        }
        return nil
    }

    /// glibc's `makedev`.
    static func makeDevice(_ major: UInt64, _ minor: UInt64) -> UInt64 {
        ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
    }

    /// The `iov_base="…"` strings of a `sendmsg` message argument.
    static func iovecStrings(_ message: String) -> [String] {
        message.split(separator: "iov_base=", omittingEmptySubsequences: false).dropFirst().compactMap {
            part -> String? in
            guard part.hasPrefix("\""), let end = part.dropFirst().firstIndex(of: "\"") else { return nil }
            return String(part[...end])
        }
    }
}
