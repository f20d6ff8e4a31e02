import BooksCore

/// Locks that name no version (nano's `--locking` lock, Emacs' `.#` link): the version each
/// holder's buffer came from is the one in place when its lock was first seen, then its own saves.
extension ReconcilerStateMachine {
    /// The content held now, as a version (what a buffer loaded now would hold).
    var currentVersion: FileVersion {
        FileVersion(
            seq: context.seq, inode: identity?.inode ?? 0, size: identity?.size ?? 0,
            mtimeSeconds: Int64(identity?.modified.tv_sec ?? 0),
            mtimeNanoseconds: Int64(identity?.modified.tv_nsec ?? 0))
    }

    /// Records the holders of the locks seen (before the observation they came with is applied:
    /// a buffer whose lock is there now came from the content held, or an older one).
    mutating func noteLockHolders() {
        guard fileState == .present else { return }
        for lock in editorLocks where !lock.namesVersion { lockBases.seen(lock.holder, current: currentVersion) }
    }

    /// A file edit stood as written while locks that name no version were there: when exactly one
    /// was, its holder saved it (its buffer now holds the content applied).
    mutating func noteStandingSave() {
        let holders = Set(editorLocks.filter { !$0.namesVersion }.map(\.holder))
        guard holders.count == 1, let holder = holders.first else { return }
        lockBases.set(holder, to: currentVersion)
    }
}
