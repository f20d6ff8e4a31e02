import BooksCore

/// Destructive-looking states and saves from a stale buffer wait to stand still before they are applied.
extension ReconcilerStateMachine {
    /// Waits for a destructive-looking state to stand still before believing it.
    mutating func scheduleConfirmation(
        observed: [UInt8]?, reason: String, locks: [EditorLock] = [], vanished: [String] = []
    ) -> [ReconcilerAction] {
        confirmationGeneration += 1
        confirmation = Confirmation(
            generation: confirmationGeneration, observed: observed, reason: reason, locks: locks, vanished: vanished)
        fileState = .confirming(reason)
        let delay = configuration.confirmationDelay
        return [
            .log(.debug, "\(reason): waiting \(delay) for the file to stand still"),
            .scheduleConfirmation(generation: confirmationGeneration, after: delay),
        ]
    }

    mutating func confirmationTimerFired(_ generation: Int) -> [ReconcilerAction] {
        guard generation == confirmationGeneration, confirmation?.generation == generation else {
            return [.publishStatus, .process(.writesDue)]  // superseded meanwhile
        }
        return [.readForConfirmation(generation: generation)]
    }

    mutating func confirmationRead(_ snapshot: BookStoreSnapshot, generation: Int) -> [ReconcilerAction] {
        guard generation == confirmationGeneration, let pending = confirmation, pending.generation == generation else {
            return [.publishStatus, .process(.writesDue)]
        }
        var actions: [ReconcilerAction] = []
        switch (snapshot, pending.observed) {
        case (.missing, nil):
            actions.append(.log(.notice, "\(pending.reason), and stayed so: all books are gone"))
            actions += applyFileEdit(identity: nil) { $0.apply(bytes: [], source: .file, actor: $1) }
            actions.append(.publishStatus)
        case (.present(let canonical, let identity), .some(let seen))
        where ByteComparison.equal(canonical, seen) && (!pending.locks.isEmpty || !pending.vanished.isEmpty):
            (editorLocks, vanishedHolders) = (pending.locks, pending.vanished)
            defer { (editorLocks, vanishedHolders) = ([], []) }
            if let stale = mergeStaleSave(ByteSplice(from: context.document.bytes, to: canonical)) {
                actions += applyStaleSave(stale, identity: identity)
            } else {
                let seq = context.seq
                actions += applyFileEdit(identity: identity) { $0.apply(bytes: canonical, source: .file, actor: $1) }
                if context.seq != seq { noteStandingSave() }
                actions.append(.publishStatus)
            }
        case (.present(let canonical, let identity), .some(let seen)) where ByteComparison.equal(canonical, seen):
            actions.append(.log(.notice, "\(pending.reason), and it stood still: applying it"))
            actions += applyFileEdit(identity: identity) { $0.apply(bytes: canonical, source: .file, actor: $1) }
            actions.append(.publishStatus)
        default:
            actions += refresh(mayDefer: false)  // it moved on: compare again
        }
        actions.append(.process(.writesDue))
        return actions
    }
}
