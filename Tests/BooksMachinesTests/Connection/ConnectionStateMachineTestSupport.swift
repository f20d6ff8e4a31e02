@testable import BooksMachines

/// Helpers shared by the suites of the pure connection machine (`ConnectionStateMachineTests`,
/// `…LargeReplyTests`, `…LimitsTests`): conform a suite to use them.
protocol ConnectionMachineSuite {}

extension ConnectionMachineSuite {
    typealias Action = ConnectionStateMachine.Action

    /// `text` and a newline, as bytes arriving from the socket.
    func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    /// A machine (with the given limits) that has received a hello.
    func helloed(
        queueLimit: Int = 8 << 20, maxPendingRequests: Int = 64, pageBudget: Int = 256 << 10
    ) -> ConnectionStateMachine {
        var m = ConnectionStateMachine(
            queueLimit: queueLimit, maxPendingRequests: maxPendingRequests, pageBudget: pageBudget)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        return m
    }

    /// The ids of the requests `actions` deliver, in order.
    func delivered(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .deliver(let r) = $0 { return r.id } else { return nil } }
    }
}
