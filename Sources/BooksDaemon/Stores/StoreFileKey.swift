import Glibc

/// What makes two store paths the same file: device and inode (symlinks followed), or — for a
/// file that does not exist yet — its canonical directory and name.
enum StoreFileKey: Sendable, Hashable {
    case inode(device: UInt64, inode: UInt64)
    case absent(String)

    /// The key of the file at `path` now.
    static func of(_ path: String) -> StoreFileKey {
        var info = stat()
        if stat(path, &info) == 0 { return .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) }
        guard let watched = try? WatchedPath(path) else { return .absent(path) }
        guard let resolved = realpath(watched.directory, nil) else { return .absent(watched.path) }
        defer { free(resolved) }
        return .absent(String(cString: resolved) + "/" + watched.name)
    }
}
