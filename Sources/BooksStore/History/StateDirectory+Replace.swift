import BooksCore
import Glibc

extension StateDirectory {
    /// Replaces the small file `name` with `bytes`, atomically and durably: written to a temporary
    /// beside it, synced, renamed over it, and the directory synced.
    public func replace(_ name: String, with bytes: [UInt8]) throws(HistoryStoreError) {
        let temporary = name + ".tmp"
        let file = try create(temporary)
        do {
            try Self.write(file, [bytes], at: 0, path: path + "/" + temporary)
        } catch {
            close(file)
            unlinkat(fd, temporary, 0)
            throw error
        }
        let synced = fsync(file) == 0
        let number = errno
        close(file)
        guard synced else {
            unlinkat(fd, temporary, 0)
            throw .system(operation: "fsync", path: path + "/" + temporary, errno: number)
        }
        try rename(temporary, over: name)
        sync()
    }
}
