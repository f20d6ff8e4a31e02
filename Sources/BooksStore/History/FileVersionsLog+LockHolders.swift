import BooksCore
import FoundationEssentials

/// The versions the buffers of nano and Emacs lock holders came from (`LockHolderBases`: their
/// locks name no version, so booksd dates each by the version in place when it first saw the
/// lock), kept beside the file versions so a save from such a buffer opened before a restart is
/// still merged after it.
///
/// File `lock-holders`: one JSON line naming the epoch, then one line per holder (least recently
/// set first); small (at most `LockHolderBases.capacity` holders), replaced whole and durably, only
/// when the bases changed (a lock first seen, a holder's save landed: rare).
extension FileVersionsLog {
    /// The file's name in the state directory.
    public static let lockHoldersFileName = "lock-holders"

    /// The holders' bases kept for `epoch`, none newer than `seq` (none when the file is missing,
    /// unreadable or of another epoch).
    public func loadLockBases(epoch: String, upTo seq: UInt64) throws(HistoryStoreError) -> [LockHolderBases.Entry] {
        guard let bytes = try directory.read(Self.lockHoldersFileName, sizeLimit: 1 << 20) else { return [] }
        let decoder = JSONDecoder()
        var entries: [LockHolderBases.Entry] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            if index == 0 {
                guard let header = try? decoder.decode(Header.self, from: Data(line)), header.epoch == epoch
                else { return [] }
                continue
            }
            guard let entry = try? decoder.decode(LockHolderBases.Entry.self, from: Data(line)) else { break }
            if entry.base.seq <= seq { entries.append(entry) }
        }
        persistedLockBases = entries
        lockBasesEpoch = epoch
        return entries
    }

    /// Writes `bases` for `epoch` when they differ from those last written or read.
    public func persistLockBases(_ bases: LockHolderBases, epoch: String) throws(HistoryStoreError) {
        let entries = bases.entries
        // Nothing read or written yet and nothing to keep: the file (if any) is left for `loadLockBases`.
        if persistedLockBases == nil, entries.isEmpty { return }
        guard entries != persistedLockBases || self.lockBasesEpoch != epoch else { return }
        var bytes = try Self.line(Header(epoch: epoch))
        for entry in entries { bytes += try Self.line(entry) }
        try directory.replace(Self.lockHoldersFileName, with: bytes)
        persistedLockBases = entries
        lockBasesEpoch = epoch
    }
}
