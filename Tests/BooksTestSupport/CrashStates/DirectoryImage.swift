/// A directory tree as the crash-state model sees it: names (paths relative to the directory)
/// naming inodes, the inodes' content, and subdirectories. Pure value; `DirectoryImage+Disk`
/// reads and writes real directories.
public struct DirectoryImage: Sendable, Hashable {
    /// Name → inode number (the model's numbering).
    public var names: [String: Int]
    /// Inode number → content and mode (inodes no name refers to may stay here; they are not
    /// part of what a reader sees).
    public var files: [Int: FileImage]
    /// Subdirectories (relative paths).
    public var directories: Set<String>

    /// An image with `names` naming inodes in `files`.
    public init(names: [String: Int] = [:], files: [Int: FileImage] = [:], directories: Set<String> = []) {
        self.names = names
        self.files = files
        self.directories = directories
    }

    /// An image of files given by name, numbered 1, 2, … in name order.
    public init(files byName: [String: FileImage], directories: Set<String> = []) {
        var names: [String: Int] = [:]
        var files: [Int: FileImage] = [:]
        for (index, name) in byName.keys.sorted().enumerated() {
            names[name] = index + 1
            files[index + 1] = byName[name]!
        }
        self.init(names: names, files: files, directories: directories)
    }

    /// The file at `name`, if any.
    public subscript(name: String) -> FileImage? {
        names[name].flatMap { files[$0] }
    }

    /// What a reader sees: each name with its content, and which names share an inode; two
    /// images with the same `visible` are the same crash state.
    public var visible: VisibleDirectory {
        var byName: [String: FileImage] = [:]
        var byInode: [Int: [String]] = [:]
        for (name, inode) in names {
            byName[name] = files[inode] ?? FileImage(bytes: [])
            byInode[inode, default: []].append(name)
        }
        let links = Set(byInode.values.filter { $0.count > 1 }.map { $0.sorted() })
        return VisibleDirectory(files: byName, hardLinks: links, directories: directories)
    }

    /// Applies a metadata operation (`FileOperation.isMetadata`) to the namespace and modes; data
    /// writes, syncs and outputs are ignored here. Unknown names are left alone (the recording
    /// only sees operations that succeeded, on names the image may not hold if it started
    /// elsewhere).
    public mutating func applyMetadata(_ operation: FileOperation) {
        switch operation {
        case .create(let name, let inode, let mode):
            names[name] = inode
            files[inode] = FileImage(bytes: [], mode: mode)
        case .makeDirectory(let name):
            directories.insert(name)
        case .link(let name, let inode):
            names[name] = inode
        case .rename(let from, let to):
            guard let inode = names.removeValue(forKey: from) else { return }
            names[to] = inode
        case .exchange(let a, let b):
            let first = names[a]
            names[a] = names[b]
            names[b] = first
        case .unlink(let name):
            names[name] = nil
        case .truncate(let inode, let size):
            guard var file = files[inode] else { return }
            file.bytes = FileImage.resized(file.bytes, to: size)
            files[inode] = file
        case .setAttributes(let inode, let mode):
            if let mode { files[inode]?.mode = mode }
        case .write, .sync, .syncDirectory, .output:
            return
        }
    }

    /// Applies a data write to `inode` (zero-filling a gap before `offset`).
    public mutating func applyWrite(inode: Int, offset: Int, bytes: [UInt8]) {
        var file = files[inode] ?? FileImage(bytes: [])
        file.bytes = FileImage.written(file.bytes, at: offset, bytes)
        files[inode] = file
    }
}

extension DirectoryImage {
    /// One line per name: size and the first bytes (for failure messages).
    public var summary: String {
        names.keys.sorted().map { name in
            let bytes = self[name]?.bytes ?? []
            return
                "\(name) (\(bytes.count) B, ends \(String(decoding: bytes.suffix(40), as: UTF8.self).debugDescription))"
        }.joined(separator: "; ")
    }
}
