import BooksClient

/// The stderr notices of `subscribe` (pure): the reconnect hint once per outage, not once per
/// retry, and one line when the feed is back.
struct ReconnectNotices: Sendable {
    /// Whether the subscription keeps a mirror (changes missed in a gap are then reported).
    let mirror: Bool
    /// Whether an outage is under way (its notice was printed).
    private(set) var retrying = false

    init(mirror: Bool) { self.mirror = mirror }

    /// The line to print for `status` (without the `booksctl: ` prefix), or nil.
    mutating func notice(for status: SubscriptionStatus) -> String? {
        switch status {
        case .disconnected(let reason, _):
            guard !retrying else { return nil }
            retrying = true
            return """
                \(TextCell.escape(reason)); reconnecting (retrying every 2 s at most until booksd answers; \
                is it running? `systemctl status booksd`)
                """
        case .subscribed:
            guard retrying else { return nil }
            retrying = false
            return "reconnected, resuming"
        case .resyncRequired(let reason) where mirror:
            return "resync required (\(TextCell.escape(reason))); reporting missed changes from a snapshot"
        case .resyncRequired(let reason):
            return "resync required (\(TextCell.escape(reason))); missed changes cannot be reported"
        }
    }
}
