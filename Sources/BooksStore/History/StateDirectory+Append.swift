import BooksCore
import Glibc

extension StateDirectory {
    /// Appends `bytes` to the file `name` (created `0600` when missing), after the same checks
    /// as `read`; with `durably`, the file is synced before this returns (and the directory when
    /// the file was created).
    public func append(_ name: String, _ bytes: [UInt8], durably: Bool) throws(HistoryStoreError) {
        let path = self.path + "/" + name
        var created = false
        var file = openat(fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        if file < 0, errno == ENOENT {
            file = try create(name)
            created = true
        }
        guard file >= 0 else { throw .system(operation: "open", path: path, errno: errno) }
        defer { close(file) }
        let size = try checkOwnFile(file, name: name)
        try Self.write(file, [bytes], at: size, path: path)
        guard durably else { return }
        guard fsync(file) == 0 else { throw .system(operation: "fsync", path: path, errno: errno) }
        if created { sync() }
    }
}
