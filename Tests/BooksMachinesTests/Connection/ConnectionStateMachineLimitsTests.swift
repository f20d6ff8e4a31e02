import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksMachines

/// The daemon's limits in the pure machine: the idle timeout and the budget for unfinished lines.
@Suite struct ConnectionStateMachineLimitsTests: ConnectionMachineSuite {
    @Test func idleTimeoutClosesOnlyQuietUnsubscribedConnections() {
        var fresh = ConnectionStateMachine()
        let freshActions = fresh.idleTimeoutElapsed(after: .seconds(5))
        #expect(freshActions.isEmpty, "awaitingHello has the hello timeout")
        var busy = helloed()
        _ = busy.bytesReceived(line(#"{"id":"p","op":"ping"}"#))
        let busyActions = busy.idleTimeoutElapsed(after: .seconds(5))
        #expect(!busy.isIdleCloseable && busyActions.isEmpty, "a request is unanswered")
        var subscriber = helloed()
        let subscribed = subscriber.subscriptionStarted(filter: .all, afterSeq: 0)
        #expect(subscribed)
        let subscriberActions = subscriber.idleTimeoutElapsed(after: .seconds(5))
        #expect(subscriberActions.isEmpty, "subscribers are never idle-closed")
        var idle = helloed()
        #expect(idle.isIdleCloseable)
        let actions = idle.idleTimeoutElapsed(after: .seconds(5))
        #expect(actions.last == .close(.idleTimeout))
        guard case .send(let bytes) = actions.first,
            let reply = try? JSONDecoder().decode(Reply.self, from: Data(bytes))
        else {
            Issue.record("no notice before closing")
            return
        }
        #expect(reply.error?.code == .limitExceeded)
        #expect(reply.error?.message.contains("idle for 5 s") == true)
        let again = idle.idleTimeoutElapsed(after: .seconds(5))
        #expect(again.isEmpty, "closed: refused")
    }

    @Test func lineBudgetClosesWithTooLarge() {
        var m = helloed()
        _ = m.bytesReceived(Array(#"{"id":"x","op":"ping","#.utf8))
        #expect(m.unfinishedLineBytes == 22)
        let actions = m.lineBudgetExceeded(budget: 10)
        #expect(actions.last == .close(.protocolViolation(.tooLarge)))
        let again = m.lineBudgetExceeded(budget: 10)
        #expect(again.isEmpty)
    }
}
