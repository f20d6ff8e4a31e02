import BooksCore
import Glibc

extension StateDirectory {
    /// Replaces the small file `name` with `bytes`, atomically and durably: written to a temporary
    /// beside it, synced, renamed over it, and the directory synced.
    public func replace(_ name: String, with bytes: [UInt8]) throws(HistoryStoreError) {
        try replace(name, chunks: CollectionOfOne(bytes))
    }

    /// Replaces `name` as `replace(_:with:)` does, its content the concatenation of `chunks`,
    /// each written before the next is taken: a large file made chunk by chunk (a lazy
    /// sequence) costs one chunk of memory, not its whole content.
    public func replace(_ name: String, chunks: some Sequence<[UInt8]>) throws(HistoryStoreError) {
        let temporary = name + ".tmp"
        let file = try create(temporary)
        do {
            var offset = 0
            for chunk in chunks {
                try Self.write(file, [chunk], at: offset, path: path + "/" + temporary)
                offset += chunk.count
            }
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
