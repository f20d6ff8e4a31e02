import BooksProtocol

/// Limits enforced across connections by the socket layer, decided here: the idle timeout of
/// unsubscribed connections and the global budget for unfinished request lines.
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
        let notice = emit(
            .failure(
                nil,
                ProtocolError(
                    .limitExceeded, "idle for \(spelled) without a subscription (idle_timeout_seconds): closing")))
        return [notice] + close(.idleTimeout)
    }

    /// Bytes of an unfinished request line held for this connection (the framer's buffer).
    public var unfinishedLineBytes: Int { framer.bufferedByteCount }

    /// The server's budget for unfinished request lines (`budget` bytes, all connections
    /// together) is exhausted and this connection holds the largest one: answers `too-large` and
    /// closes it as a protocol violation. No action unless live.
    public mutating func lineBudgetExceeded(budget: Int) -> [Action] {
        guard state.isLive else { return [] }
        var actions: [Action] = []
        violation(
            ProtocolError(
                .tooLarge,
                "unfinished request line of \(unfinishedLineBytes) bytes is the largest "
                    + "while the server's budget for unfinished lines (\(budget) bytes) is exhausted"),
            id: nil, into: &actions)
        return actions
    }
}
