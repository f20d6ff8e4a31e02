import BooksCore
import BooksProtocol

/// Locks that name no version (nano's `--locking` lock, Emacs' `.#` link): the version each
/// holder's buffer came from is the one in place when its lock was first seen, then its own saves.
extension ReconcilerStateMachine {
    /// The versions kept from before a restart, oldest first, then those recorded since.
    mutating func fileVersionsLoaded(_ loaded: [FileVersion]) -> [ReconcilerAction] {
        var restored = FileVersions(capacity: fileVersions.capacity)
        for version in loaded + fileVersions.versions { restored.record(version) }
        fileVersions = restored
        return []
    }

    /// The content held now, as a version (what a buffer loaded now would hold).
    var currentVersion: FileVersion {
        FileVersion(
            seq: context.seq, inode: identity?.inode ?? 0, size: identity?.size ?? 0,
            mtimeSeconds: Int64(identity?.modified.tv_sec ?? 0),
            mtimeNanoseconds: Int64(identity?.modified.tv_nsec ?? 0))
    }

    /// Records the holders of the locks seen (before the observation they came with is applied:
    /// a buffer whose lock is there now came from the content held, or an older one), and which
    /// locks vanished since the last look.
    mutating func noteLockHolders() {
        let holders = Set(editorLocks.filter { !$0.namesVersion }.map(\.holder))
        vanishedHolders = lockBases.look(holders, current: currentVersion)
    }

    /// The holders that may have saved what is being looked at: those of the locks there that
    /// name no version, and those whose lock vanished since the last look.
    var unversionedSavers: Set<String> {
        Set(editorLocks.filter { !$0.namesVersion }.map(\.holder)).union(vanishedHolders)
    }

    /// Whether a look beside the file matters even when it finds no lock (one was there last time).
    public var awaitsLockLook: Bool { !lockBases.present.isEmpty }

    /// Whether there is any evidence of which version a save came from.
    var hasSaveEvidence: Bool { !editorLocks.isEmpty || !vanishedHolders.isEmpty }

    /// A file edit stood as written while locks that name no version were there (or had just
    /// vanished): when exactly one holder was, it saved it (its buffer now holds the content applied).
    mutating func noteStandingSave() {
        let holders = unversionedSavers
        guard holders.count == 1, let holder = holders.first else { return }
        lockBases.set(holder, to: currentVersion)
    }

    /// A commit found the file changed by a save from a stale buffer: read the same twice (it
    /// waited to stand still), it is merged now, before the writes; else it waits to stand still
    /// and the writes are refused with a retry hint (as for a file being rewritten), never
    /// applied on top of the save taken as written.
    mutating func staleSaveBeforeCommit(
        _ stale: StaleSave, splice: ByteSplice, identity: FileIdentity, into actions: inout [ReconcilerAction]
    ) -> ProtocolError? {
        let seen = splice.applied(to: context.document.bytes)
        if let pending = confirmation, let observed = pending.observed, ByteComparison.equal(observed, seen) {
            actions += applyStaleSave(stale, identity: identity)
            return nil
        }
        actions += scheduleConfirmation(
            observed: seen, reason: "a save from a stale buffer", locks: editorLocks, vanished: vanishedHolders)
        return ProtocolError(.storeUnavailable, "a save from a stale editor buffer is being merged; retry in a moment")
    }
}
