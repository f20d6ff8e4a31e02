import BooksCore

/// Destructive-looking states and saves from a stale buffer wait to stand still before they are applied.
extension ReconcilerStateMachine {
    /// A destructive-looking state (or a save from a stale buffer) waiting to stand still, or none;
    /// either way the generation of the last confirmation timer asked for, so that a timer of an
    /// earlier one is told apart. Superseding a wait forgets what it waited for: no later
    /// comparison can take a forgotten wait for a live one (no timer would ever end it).
    enum ConfirmationState: Sendable {
        /// Nothing waits; `generation`: the last one used.
        case none(generation: Int)
        /// The timer of `Confirmation.generation` decides.
        case waiting(Confirmation)
    }

    /// A destructive-looking state waiting to be confirmed.
    struct Confirmation: Sendable {
        var generation: Int
        var observed: [UInt8]?
        var reason: String
        /// For a save from a stale buffer: the editor locks seen with it (it is merged once confirmed).
        var locks: [EditorLock] = []
        /// And the holders whose lock had just vanished (see ``LockHolderBases/look(_:current:)``).
        var vanished: [String] = []
    }

    /// The state waiting to stand still, if any.
    var confirmation: Confirmation? {
        if case .waiting(let pending) = confirming { pending } else { nil }
    }

    /// The generation of the last confirmation timer asked for (or superseded).
    var confirmationGeneration: Int {
        switch confirming {
        case .none(let generation): generation
        case .waiting(let pending): pending.generation
        }
    }

    /// Drops the state waiting to stand still, if any: a timer asked for before decides nothing.
    mutating func supersedeConfirmation() {
        confirming = .none(generation: confirmationGeneration + 1)
    }

    /// Waits for a destructive-looking state to stand still before believing it.
    mutating func scheduleConfirmation(
        observed: [UInt8]?, reason: String, locks: [EditorLock] = [], vanished: [String] = []
    ) -> [ReconcilerAction] {
        let generation = confirmationGeneration + 1
        confirming = .waiting(
            Confirmation(generation: generation, observed: observed, reason: reason, locks: locks, vanished: vanished))
        fileState = .confirming(reason)
        let delay = configuration.confirmationDelay
        return [
            .log(.debug, "\(reason): waiting \(delay) for the file to stand still"),
            .scheduleConfirmation(generation: generation, after: delay),
        ]
    }

    mutating func confirmationTimerFired(_ generation: Int) -> [ReconcilerAction] {
        guard case .waiting(let pending) = confirming, pending.generation == generation else {
            return [.publishStatus, .process(.writesDue)]  // superseded meanwhile
        }
        return [.readForConfirmation(generation: generation)]
    }

    mutating func confirmationRead(_ snapshot: BookStoreSnapshot, generation: Int) -> [ReconcilerAction] {
        guard case .waiting(let pending) = confirming, pending.generation == generation else {
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
