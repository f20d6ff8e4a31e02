import BooksProtocol

/// Limits enforced by the socket layer, decided here: the idle timeout of unsubscribed
/// connections.
extension ConnectionStateMachine {
    /// True when the idle timeout applies: `active` (said hello, not subscribed), nothing
    /// unanswered, no line waiting, nothing queued, and the client did not close its side.
    /// Subscribers are never idle (they get heartbeats); `awaitingHello` has the hello timeout.
    public var isIdleCloseable: Bool { state == .active && isIdle && !isInputClosed }

    /// No traffic for `timeout` on this connection: an idle one (`isIdleCloseable`) is sent a
    /// `limit-exceeded` notice and closed with `.idleTimeout`; otherwise nothing happens.
    public mutating func idleTimeoutElapsed(after timeout: Duration) -> [Action] {
        guard isIdleCloseable else { return [] }
        let (seconds, attoseconds) = timeout.components
        let spelled = attoseconds == 0 ? "\(seconds) s" : "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
        let notice = emit(.failure(nil, ProtocolError(
            .limitExceeded, "idle for \(spelled) without a subscription (idle_timeout_seconds): closing")))
        return [notice] + close(.idleTimeout)
    }
}
