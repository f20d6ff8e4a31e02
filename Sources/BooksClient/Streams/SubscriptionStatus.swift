/// Connection events of a `ResilientSubscription`, for logging (not part of the data stream).
public enum SubscriptionStatus: Sendable, Hashable {
    /// Subscribed; `resumed` is true when a resume point was sent.
    case subscribed(resumed: Bool)
    /// The connection was lost or could not be made; the next attempt follows after `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
    /// The daemon said the resume point cannot be served; a snapshot diff follows.
    case resyncRequired(reason: String)
}
