import BooksCore
import BooksStore
import FoundationEssentials
import Glibc

/// The I/O shell of merged saves: reading the editor locks beside the book file, keeping the
/// conflicts in the state directory.
extension BookEngine {
    /// The editor locks beside the book file now (vim swap files and nano locks: block 0; Emacs'
    /// lock: its symlink's target). Each is a small read; a missing one costs a failed `open`.
    func readEditorLocks() -> [EditorLock] {
        let path = store.configuration.path
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var locks: [EditorLock] = []
        for candidate in EditorLock.candidateNames(for: name) {
            let full = directory + candidate
            if candidate.hasPrefix(".#") {
                if let target = Self.symlinkTarget(full), let lock = EmacsLock(target: target) {
                    locks.append(.emacs(lock))
                }
            } else if let block = Self.readPrefix(full, count: SwapFileHeader.headerSize),
                let header = SwapFileHeader(parsing: block)
            {
                locks.append(.swap(header))
            }
        }
        return locks
    }

    /// `observation`, preceded by the editor locks beside the file when `condition` holds and
    /// there are any (or there were some at the last look: their vanishing counts too).
    func withEditorLocks(_ observation: ReconcilerInput, if condition: Bool) -> ReconcilerInput {
        guard condition else { return observation }
        let locks = readEditorLocks()
        if locks.isEmpty, !machine.withLock({ $0.awaitsLockLook }) { return observation }
        return .editorLocksSeen(locks, then: observation)
    }

    /// The first `count` bytes of the regular file at `path` (nil: absent, not regular, shorter).
    static func readPrefix(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, 0) }
        return n == count ? bytes : nil
    }

    /// The target of the symlink at `path` (nil: absent or not a symlink).
    static func symlinkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes {
            readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 512)
        }
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// The name of the conflicts file in the state directory.
    var conflictsFileName: String? { history == nil ? nil : "conflicts.json" }

    /// Keeps `conflicts` in the state directory (durably); logged when that fails.
    func storeConflicts(_ conflicts: [RecordedConflict]) {
        createDeferredHistory()
        guard let history, let name = conflictsFileName else { return }
        do {
            let bytes = try Array(JSONEncoder().encode(conflicts))
            try history.directory.replace(name, with: bytes)
        } catch {
            logger.error("cannot keep the merge conflicts in \(history.directory.path)/\(name): \(error)")
        }
    }

    /// The conflicts kept before a restart (none when there is no state directory or file).
    func loadConflicts() -> [RecordedConflict] {
        guard let history, let name = conflictsFileName else { return [] }
        do {
            guard let bytes = try history.directory.read(name, sizeLimit: 64 << 20) else { return [] }
            return try JSONDecoder().decode([RecordedConflict].self, from: Data(bytes))
        } catch {
            logger.error("cannot read the merge conflicts in \(history.directory.path)/\(name): \(error)")
            return []
        }
    }

    /// Loads the file versions and lock holders' bases kept before a restart into the machine,
    /// when the saved history was continued (versions of another epoch name other content: they are dropped).
    func loadFileVersions() {
        guard let log = historyHandle?.versions else { return }
        let (restoring, epoch, seq) = machine.withLock { ($0.resumingHistory, $0.context.epoch, $0.context.seq) }
        guard restoring else { return }
        // The lock holders first: running an input persists them (nothing must be written over
        // them before they are read).
        do {
            let kept = try log.loadLockBases(epoch: epoch, upTo: seq)
            if !kept.isEmpty { run(.lockBasesLoaded(kept)) }
        } catch {
            logger.warning("cannot read the editor lock holders kept in the state directory: \(error)")
        }
        do {
            let versions = try log.load(epoch: epoch, upTo: seq)
            if !versions.isEmpty { run(.fileVersionsLoaded(versions)) }
            log.loaded(into: machine.withLock { $0.fileVersions })
        } catch {
            logger.warning("cannot read the file versions kept in the state directory: \(error)")
        }
    }

    /// Keeps the file versions recorded since the last call, and the lock holders' bases when
    /// they changed, in the state directory.
    func persistFileVersions() {
        guard let log = historyHandle?.versions else { return }
        let (versions, bases, epoch) = machine.withLock { ($0.fileVersions, $0.lockBases, $0.context.epoch) }
        do {
            try log.persist(versions, epoch: epoch)
        } catch {
            logger.warning("cannot keep the file versions in the state directory: \(error)")
        }
        do {
            try log.persistLockBases(bases, epoch: epoch)
        } catch {
            logger.warning("cannot keep the editor lock holders in the state directory: \(error)")
        }
    }
}
