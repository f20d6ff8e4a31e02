/// Where a `LiveBookList` stands with the daemon.
public enum LiveConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Connecting for the first time (or waiting for the daemon to start).
    case connecting
    /// Subscribed: `books` follows the daemon's changes.
    case live
    /// The connection was lost (the daemon stopped, restarted or crashed); `books` keeps its last
    /// values and the list reconnects after `retryIn`, resuming where it was.
    case reconnecting(reason: String, retryIn: Duration)
    /// Ended for good with an error reconnecting cannot fix (e.g. the daemon refused the filter).
    case failed(BooksClientError)
    /// Ended by `stop()`.
    case stopped

    /// The state after a subscription event (a pure transition; `.failed` and `.stopped` are final).
    public func after(_ status: SubscriptionStatus) -> LiveConnectionState {
        switch (self, status) {
        case (.failed, _), (.stopped, _): return self
        case (_, .subscribed): return .live
        case (_, .disconnected(let reason, let retryIn)): return .reconnecting(reason: reason, retryIn: retryIn)
        case (_, .resyncRequired): return self
        }
    }

    /// True while `books` follows the daemon.
    public var isLive: Bool { self == .live }

    /// `live`, `connecting`, `reconnecting in 0.4 s: connection closed`, `failed: …`, `stopped`.
    public var description: String {
        switch self {
        case .connecting: return "connecting"
        case .live: return "live"
        case .reconnecting(let reason, let retryIn):
            let ms = retryIn.components.seconds * 1000 + retryIn.components.attoseconds / 1_000_000_000_000_000
            return "reconnecting in \(ms) ms: \(reason)"
        case .failed(let error): return "failed: \(error)"
        case .stopped: return "stopped"
        }
    }
}
