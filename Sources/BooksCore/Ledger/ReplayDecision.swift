/// What a subscriber resuming from a point receives.
public enum ReplayDecision: Sendable, Hashable {
    /// The missed change sets, oldest first (empty when nothing was missed).
    case replay([SequencedChangeSet])
    /// The point cannot be served without a gap: the subscriber must take a fresh snapshot.
    case resyncRequired(reason: String)
}
