/// What the write path is doing: one value instead of a phase, a retry count and a "writes were
/// left behind" flag kept beside each other.
extension ReconcilerStateMachine {
    /// The group commit's state. A commit under way carries its step's data and the round it
    /// belongs to; between commits only the count of refused saves whose writes wait, back in line,
    /// for their retry is kept. So a save cannot be awaited without the writes it saves, nor a
    /// late edit written for no commit, nor "writes left behind" noted with no commit to finish.
    enum CommitState: Sendable {
        /// No commit under way; `retries`: how often the writes back in line were refused (0: none).
        case idle(retries: Int)
        /// The file is being looked at before `writes` are planned.
        case observing([PendingWrite], Round)
        /// The planned save is being carried out.
        case saving(Commit, Round)
        /// The save found another program's late edit; its merge with ours is being written.
        case writingLateEdit(Commit, Round)

        /// The count of refused saves of the writes committed or waiting to be.
        var retries: Int {
            switch self {
            case .idle(let retries): retries
            case .observing(_, let round), .saving(_, let round), .writingLateEdit(_, let round): round.retries
            }
        }

        /// Whether a commit is under way.
        var isCommitting: Bool {
            if case .idle = self { false } else { true }
        }
    }

    /// How often the writes being committed (or waiting, back in line) had their save refused.
    var writeRetries: Int { commitState.retries }

    /// What a commit under way carries from its start to its end.
    struct Round: Sendable, Hashable {
        /// How often a save of these writes was refused and retried.
        var retries: Int
        /// Whether queued writes were left behind when it started (an undo is committed on its own).
        var leftWrites: Bool
    }

    /// The accepted and deferred writes of a commit whose save was planned.
    struct Commit: Sendable {
        var accepted: [(ticket: PendingWrite, outcome: WritePlan<PendingWrite>.Outcome)]
        var deferred: [PendingWrite]
        /// The save with a base among `accepted`, merged (see ``mergeBasedSave(_:into:)``).
        var based: BasedSave? = nil
    }
}
