import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// The state enum of `ConnectionStateMachine`: what each case carries, broadcast filtering by
/// subscription, and `.close` being the last action after which every input is refused.
@Suite struct ConnectionStateTests {
    typealias Action = ConnectionStateMachine.Action

    private let austen = BookFilter([BookCondition(.author, .equals, "Jane Austen")])

    private func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    private func helloed(queueLimit: Int = 8 << 20) -> ConnectionStateMachine {
        var m = ConnectionStateMachine(queueLimit: queueLimit)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        return m
    }

    private func subscribed(
        _ filter: BookFilter, afterSeq: UInt64,
        queueLimit: Int = 8 << 20
    ) -> ConnectionStateMachine {
        var m = helloed(queueLimit: queueLimit)
        _ = m.subscriptionStarted(filter: filter, afterSeq: afterSeq)
        return m
    }

    @Test func subscribedCarriesFilterAndAfterSeq() {
        var m = helloed()
        #expect(m.isIntroduced && !m.isSubscribed)
        let started = m.subscriptionStarted(filter: austen, afterSeq: 7)
        #expect(started && m.state == .subscribed(filter: austen, afterSeq: 7))
        #expect(m.isSubscribed && m.state.phase == .subscribed)
        // Subscribing again replaces filter and position.
        let replaced = m.subscriptionStarted(filter: .all, afterSeq: 9)
        #expect(replaced && m.state == .subscribed(filter: .all, afterSeq: 9))
    }

    @Test func broadcastsAreOfferedOncePerSeqAboveAfterSeq() {
        var m = subscribed(austen, afterSeq: 5)
        #expect(m.acceptBroadcast(seq: 4) == nil, "covered by the initial events")
        #expect(m.acceptBroadcast(seq: 5) == nil)
        #expect(m.acceptBroadcast(seq: 6) == austen)
        #expect(m.state == .subscribed(filter: austen, afterSeq: 6))
        #expect(m.acceptBroadcast(seq: 6) == nil, "each change is offered once")
        #expect(m.acceptBroadcast(seq: 8) == austen)
        #expect(m.acceptsHeartbeat(seq: 8))
        #expect(!m.acceptsHeartbeat(seq: 7))

        var active = helloed()
        #expect(active.acceptBroadcast(seq: 1) == nil, "not a subscriber")
        #expect(!active.acceptsHeartbeat(seq: 1))
        var waiting = ConnectionStateMachine()
        #expect(waiting.acceptBroadcast(seq: 1) == nil)
    }

    @Test func introducedIsKnownInEveryState() {
        var fresh = ConnectionStateMachine()
        #expect(!fresh.isIntroduced)
        _ = fresh.helloTimeoutElapsed()
        #expect(fresh.state == .closing(.helloTimeout, from: .awaitingHello) && !fresh.isIntroduced)

        var sub = subscribed(.all, afterSeq: 0)
        _ = sub.endOfInput()
        #expect(sub.state == .closing(.peerClosed, from: .subscribed))
        #expect(sub.isIntroduced && !sub.isSubscribed && sub.state.phase == .subscribed)
    }

    /// Every way into `closing`: `.close` is the last action, emitted once, and the machine
    /// refuses every input afterwards.
    @Test func closeIsTheLastActionAndEverythingAfterIsRefused() {
        let lagNotice = { Array("lagged\n".utf8) }
        var cases: [(String, ConnectionStateMachine, [Action], ConnectionStateMachine.CloseReason)] = []
        var m = ConnectionStateMachine()
        var actions = m.bytesReceived(line(#"{"id":"p","op":"ping"}"#))
        cases.append(("violation", m, actions, .protocolViolation(.helloRequired)))
        m = ConnectionStateMachine()
        actions = m.helloTimeoutElapsed()
        cases.append(("hello timeout", m, actions, .helloTimeout))
        m = subscribed(.all, afterSeq: 0, queueLimit: 10)
        actions = m.enqueue([UInt8](repeating: 1, count: 8), kind: .event, lagNotice: lagNotice)
        actions = m.enqueue([UInt8](repeating: 2, count: 8), kind: .event, lagNotice: lagNotice)
        cases.append(("lagged", m, actions, .lagged))
        m = helloed()
        actions = m.socketFailed(errno: 104)
        cases.append(("socket error", m, actions, .ioError(104)))
        m = helloed()
        actions = m.peerHungUp()
        cases.append(("hang-up", m, actions, .peerClosed))
        m = helloed()
        actions = m.beginShutdown(subscriberNotice: [])
        cases.append(("shutdown with nothing queued", m, actions, .shutdown))

        for (name, machine, actions, reason) in cases {
            var machine = machine
            #expect(actions.last == .close(reason), "\(name)")
            #expect(actions.filter { if case .close = $0 { return true } else { return false } }.count == 1, "\(name)")
            guard case .closing(let recorded, _) = machine.state else {
                Issue.record("\(name): not closing but \(machine.state)")
                continue
            }
            #expect(recorded == reason, "\(name)")
            #expect(machine.isReadingPaused && !machine.acceptsInput, "\(name)")
            var after: [Action] = []
            after += machine.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
            after += machine.enqueue([1], kind: .reply)
            after += machine.enqueue([1], kind: .event, lagNotice: lagNotice)
            after += machine.drained(1)
            after += machine.endOfInput()
            after += machine.peerHungUp()
            after += machine.socketFailed(errno: 32)
            after += machine.helloTimeoutElapsed()
            after += machine.beginShutdown(subscriberNotice: [1])
            #expect(after.isEmpty, "\(name): \(after)")
            let admitted = machine.admitEvent(1)
            let subscribedAgain = machine.subscriptionStarted(filter: .all, afterSeq: 0)
            #expect(!admitted && !subscribedAgain && machine.acceptBroadcast(seq: 99) == nil, "\(name)")
        }
    }

    @Test func shutdownDrainsThenCloses() {
        var m = subscribed(.all, afterSeq: 0)
        let notice = Array("shutdown\n".utf8)
        let actions = m.beginShutdown(subscriberNotice: notice)
        #expect(actions == [.pauseReading, .send(notice)])
        #expect(m.state == .draining(from: .subscribed) && m.queuedBytes == notice.count)
        #expect(m.acceptBroadcast(seq: 1) == nil, "no broadcasts while draining")
        let partly = m.drained(3)
        #expect(partly.isEmpty)
        let rest = m.drained(notice.count - 3)
        #expect(rest == [.close(.shutdown)])
        #expect(m.state == .closing(.shutdown, from: .subscribed))
        let twice = m.beginShutdown(subscriberNotice: notice)
        #expect(twice.isEmpty)
    }
}
