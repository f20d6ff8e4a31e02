import Glibc

extension DirectoryImage {
    /// Reads the regular files and subdirectories under `path` (symbolic links, sockets and
    /// other kinds are left out), numbering inodes 1, 2, … in name order (names sharing a real
    /// inode share a model inode). Also returns each model inode's real identity.
    public static func read(_ path: String) throws -> (DirectoryImage, [Int: RealFileIdentity]) {
        var image = DirectoryImage()
        var real: [RealFileIdentity: Int] = [:]
        func visit(_ relative: String) throws {
            let directory = relative.isEmpty ? path : path + "/" + relative
            for name in TestFiles.names(in: directory) {
                let child = relative.isEmpty ? name : relative + "/" + name
                var s = stat()
                guard lstat(path + "/" + child, &s) == 0 else { continue }
                switch s.st_mode & S_IFMT {
                case S_IFDIR:
                    image.directories.insert(child)
                    try visit(child)
                case S_IFREG:
                    let identity = RealFileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
                    if let inode = real[identity] {
                        image.names[child] = inode
                        continue
                    }
                    guard let bytes = TestFiles.readBytes(path + "/" + child) else {
                        throw TestSupportError("cannot read \(path)/\(child): \(TestFiles.errorText())")
                    }
                    let inode = image.files.count + 1
                    real[identity] = inode
                    image.names[child] = inode
                    image.files[inode] = FileImage(bytes: bytes, mode: UInt32(s.st_mode & 0o7777))
                default:
                    continue
                }
            }
        }
        try visit("")
        return (image, Dictionary(uniqueKeysWithValues: real.map { ($0.value, $0.key) }))
    }

    /// Creates this image under the existing empty directory `path` (subdirectories, files with
    /// their modes, hard links); returns each model inode's real identity there. `rewrite` may
    /// then change a file's bytes knowing every identity (content that names inodes).
    @discardableResult
    public func materialize(
        at path: String,
        rewrite: (_ name: String, _ bytes: [UInt8], _ identities: [Int: RealFileIdentity]) -> [UInt8]? = { _, _, _ in
            nil
        }
    ) throws -> [Int: RealFileIdentity] {
        for directory in directories.sorted() {
            guard mkdir(path + "/" + directory, 0o755) == 0 || errno == EEXIST else {
                throw TestSupportError("mkdir \(directory): \(TestFiles.errorText())")
            }
        }
        var identities: [Int: RealFileIdentity] = [:]
        var firstName: [Int: String] = [:]
        for (name, inode) in names.sorted(by: { $0.key < $1.key }) {
            let target = path + "/" + name
            if let first = firstName[inode] {
                guard link(path + "/" + first, target) == 0 else {
                    throw TestSupportError("link \(name): \(TestFiles.errorText())")
                }
                continue
            }
            let file = files[inode] ?? FileImage(bytes: [])
            try TestFiles.write(file.bytes, to: target, mode: mode_t(file.mode))
            chmod(target, mode_t(file.mode))
            var s = stat()
            guard stat(target, &s) == 0 else { throw TestSupportError("stat \(name): \(TestFiles.errorText())") }
            identities[inode] = RealFileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
            firstName[inode] = name
        }
        for (name, inode) in names where firstName[inode] == name {
            let bytes = files[inode]?.bytes ?? []
            if let changed = rewrite(name, bytes, identities), changed != bytes {
                try TestFiles.write(changed, to: path + "/" + name, mode: mode_t(files[inode]?.mode ?? 0o644))
            }
        }
        return identities
    }
}
