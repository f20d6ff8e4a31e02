import BooksCore
import FoundationEssentials
import Glibc

/// The recent versions of the book file (`FileVersions`: what identifies each — seq, inode, size,
/// mtime — and a rebased save's overlay, never its content) kept in the state directory beside
/// the saved history, so a save from a buffer loaded before a restart is still recognised and
/// merged after it.
///
/// File `file-versions`: JSON lines; the first names the epoch the versions belong to, each
/// further line is one version, oldest first. Appending costs one `write` (no `fsync`, like the
/// journal: a process crash loses nothing; a power cut may cost the newest versions, and then a
/// save from a buffer older than the restart stands as written, as with no evidence). Bounded:
/// once it holds twice `capacity` versions it is rewritten with the newest `capacity`.
///
/// `@unchecked Sendable` is safe: like `HistoryStore`, every method is called only from the
/// engine's serial queue, so its mutable state is never touched by two threads.
public final class FileVersionsLog: @unchecked Sendable {
    /// The file's name in the state directory.
    public static let fileName = "file-versions"
    let directory: StateDirectory
    let capacity: Int
    /// The epoch the file's versions belong to (nil: none written or read yet).
    private var epoch: String?
    /// How many version lines the file holds.
    private var lines = 0
    /// `FileVersions.recorded` as of the last version written.
    private var persisted: UInt64 = 0
    /// The lock holders' bases as last written to or read from `lock-holders` (nil: neither yet).
    var persistedLockBases: [LockHolderBases.Entry]?
    /// The epoch of `persistedLockBases`.
    var lockBasesEpoch: String?

    struct Header: Codable { var epoch: String }

    /// The log in `directory`, keeping about `capacity` versions.
    public init(directory: StateDirectory, capacity: Int = 256) {
        self.directory = directory
        self.capacity = max(1, capacity)
    }

    /// The versions kept for `epoch`, oldest first, none newer than `seq` (none when the file
    /// is missing, unreadable or of another epoch). A line cut short by a crash ends the list.
    public func load(epoch: String, upTo seq: UInt64) throws(HistoryStoreError) -> [FileVersion] {
        guard let bytes = try directory.read(Self.fileName, sizeLimit: 64 << 20) else { return [] }
        let decoder = JSONDecoder()
        var versions: [FileVersion] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            if index == 0 {
                guard let header = try? decoder.decode(Header.self, from: Data(line)), header.epoch == epoch
                else { return [] }
                continue
            }
            guard let version = try? decoder.decode(FileVersion.self, from: Data(line)) else { break }
            if version.seq <= seq { versions.append(version) }
        }
        self.epoch = epoch
        lines = versions.count
        return versions
    }

    /// Starts counting from `versions` as just loaded into it (nothing of them is written again).
    public func loaded(into versions: FileVersions) { persisted = versions.recorded }

    /// Writes the versions `versions` added since the last call (the whole file afresh when the
    /// epoch changed or it grew to twice the capacity).
    public func persist(_ versions: FileVersions, epoch: String) throws(HistoryStoreError) {
        let new = versions.added(since: persisted)
        guard !new.isEmpty || self.epoch != epoch else { return }
        if self.epoch != epoch || lines + new.count > 2 * capacity {
            var bytes = try Self.line(Header(epoch: epoch))
            let kept = versions.versions.suffix(capacity)
            for version in kept { bytes += try Self.line(version) }
            try directory.replace(Self.fileName, with: bytes)
            self.epoch = epoch
            lines = kept.count
        } else {
            var bytes: [UInt8] = []
            for version in new { bytes += try Self.line(version) }
            try directory.append(Self.fileName, bytes, durably: false)
            lines += new.count
        }
        persisted = versions.recorded
    }

    static func line(_ value: some Encodable) throws(HistoryStoreError) -> [UInt8] {
        do {
            return try Array(JSONEncoder().encode(value)) + [UInt8(ascii: "\n")]
        } catch {
            throw .refused(path: fileName, reason: "a version cannot be encoded: \(error)")
        }
    }
}
