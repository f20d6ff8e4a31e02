import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksMachines

@Suite struct ConnectionStateMachineTests: ConnectionMachineSuite {
    private func replies(_ actions: [Action]) -> [Reply] {
        actions.compactMap {
            guard case .send(let bytes) = $0 else { return nil }
            return try? JSONDecoder().decode(Reply.self, from: Data(bytes))
        }
    }

    @Test func helloMovesToActiveAndAsksForReply() {
        var m = ConnectionStateMachine()
        #expect(m.state == .awaitingHello)
        let actions = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1,"client":"t"}"#))
        #expect(actions == [.answerHello(id: "h")])
        #expect(m.state == .active)
        #expect(m.version == 1, "a version-1 client is answered in version 1")
        let reply = ConnectionStateMachine.helloReply(
            id: "h", serverName: "booksd 1.0", epoch: "E", seq: 3, version: m.version)
        #expect(reply.result == ReplyResult(protocolVersion: 1, server: "booksd 1.0", epoch: "E", seq: 3))
    }

    @Test func requestBeforeHelloDisconnects() {
        var m = ConnectionStateMachine()
        let actions = m.bytesReceived(line(#"{"id":"p","op":"ping"}"#))
        #expect(replies(actions).map(\.error?.code) == [.helloRequired])
        #expect(replies(actions).first?.id == "p")
        #expect(actions.last == .close(.protocolViolation(.helloRequired)))
        #expect(m.state == .closing(.protocolViolation(.helloRequired), from: .awaitingHello))
        let late = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        #expect(late.isEmpty)
    }

    @Test func wrongVersionDisconnects() {
        for stated in ["0", "-1", "null"] {
            var m = ConnectionStateMachine()
            let actions = m.bytesReceived(line(#"{"id":"h","op":"hello","version":\#(stated)}"#))
            #expect(replies(actions).map(\.error?.code) == [.unsupportedVersion], "\(stated)")
            #expect(actions.last == .close(.protocolViolation(.unsupportedVersion)))
        }
    }

    @Test func helloNegotiatesTheVersion() {
        for (stated, negotiated) in [(1, 1), (2, 2), (99, ProtocolVersion.current)] {
            var m = ConnectionStateMachine()
            let actions = m.bytesReceived(line(#"{"id":"h","op":"hello","version":\#(stated)}"#))
            #expect(actions == [.answerHello(id: "h")])
            #expect(m.version == negotiated && m.namesStores == (negotiated >= 2), "\(stated)")
        }
    }

    @Test func requestsAreDeliveredInOrderAcrossSplitReads() {
        var m = helloed()
        var actions = m.bytesReceived(Array(#"{"id":"1","op":"ping"}"#.utf8) + [10] + Array(#"{"id":2,"op":"pi"#.utf8))
        actions += m.bytesReceived(line(#"ng"}"#))
        let ids = actions.compactMap { if case .deliver(let r) = $0 { return r.id } else { return nil } }
        #expect(ids == ["1", "2"])
    }

    @Test func unknownOpKeepsConnection() {
        var m = helloed()
        let actions = m.bytesReceived(line(#"{"id":"u","op":"teleport"}"#))
        #expect(replies(actions).map(\.error?.code) == [.unknownOp])
        #expect(replies(actions).first?.id == "u")
        #expect(!actions.contains { if case .close = $0 { return true } else { return false } })
        #expect(m.state == .active)
    }

    @Test func violationsDisconnect() {
        let cases: [([UInt8], ProtocolError.ErrorCode)] = [
            (line("garbage"), .badRequest),
            ([0xC3, 0x28, 10], .invalidUTF8),
            (line(String(repeating: "[", count: 40)), .tooDeep),
            (line(#"{"id":"x","op":"list","limit":"many"}"#), .badRequest),
        ]
        for (bytes, code) in cases {
            var m = helloed()
            let actions = m.bytesReceived(bytes)
            #expect(replies(actions).map(\.error?.code) == [code])
            #expect(actions.last == .close(.protocolViolation(code)))
        }
    }

    @Test func tooLargeLine() {
        var m = ConnectionStateMachine(maxRequestBytes: 100)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let actions = m.bytesReceived([UInt8](repeating: 0x61, count: 500))
        #expect(replies(actions).map(\.error?.code) == [.tooLarge])
        #expect(actions.last == .close(.protocolViolation(.tooLarge)))
    }

    @Test func helloTimeoutOnlyBeforeHello() {
        var waiting = ConnectionStateMachine()
        let actions = waiting.helloTimeoutElapsed()
        #expect(actions.last == .close(.helloTimeout))
        var m = helloed()
        let none = m.helloTimeoutElapsed()
        #expect(none.isEmpty)
    }

    @Test func blankLinesAreIgnored() {
        var m = ConnectionStateMachine()
        let blank = m.bytesReceived(Array("\n\r\n  \n".utf8))
        #expect(blank.isEmpty)
        #expect(m.state == .awaitingHello)
    }

    @Test func backPressurePausesAndResumesReading() {
        var m = ConnectionStateMachine(queueLimit: 100)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let first = m.enqueue([UInt8](repeating: 1, count: 80), kind: .reply)
        #expect(first == [.send([UInt8](repeating: 1, count: 80))])
        let second = m.enqueue([UInt8](repeating: 2, count: 80), kind: .reply)
        #expect(second.last == .pauseReading)
        #expect(m.isReadingPaused)
        let d1 = m.drained(100)  // 60 left > 50
        #expect(d1.isEmpty)
        let d2 = m.drained(20)
        #expect(d2 == [.resumeReading])
        #expect(!m.isReadingPaused)
    }

    @Test func laggedSubscriberIsClosedWithNotice() {
        var m = ConnectionStateMachine(queueLimit: 100)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let ok = m.subscriptionStarted(filter: .all, afterSeq: 0)
        #expect(ok && m.state == .subscribed(filter: .all, afterSeq: 0))
        // A large snapshot does not count against the broadcast allowance.
        _ = m.enqueue([UInt8](repeating: 0, count: 1000), kind: .unsolicited)
        let e1 = m.enqueue([UInt8](repeating: 1, count: 60), kind: .event)
        #expect(e1.count == 1)
        let actions = m.enqueue([UInt8](repeating: 2, count: 60), kind: .event) { Array("lagged\n".utf8) }
        #expect(actions == [.send(Array("lagged\n".utf8)), .close(.lagged)])
        #expect(m.state == .closing(.lagged, from: .subscribed))
        let dropped = m.enqueue([1], kind: .reply)
        #expect(dropped.isEmpty)
    }

    @Test func eventLargerThanLimitFitsAnEmptyQueue() {
        var m = ConnectionStateMachine(queueLimit: 100)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        let big = m.enqueue([UInt8](repeating: 1, count: 500), kind: .event) { Array("lagged\n".utf8) }
        #expect(big.first == .send([UInt8](repeating: 1, count: 500)))
        #expect(m.state == .subscribed(filter: .all, afterSeq: 0))
        _ = m.drained(500)
        let again = m.enqueue([UInt8](repeating: 2, count: 500), kind: .event) { Array("lagged\n".utf8) }
        #expect(again.first == .send([UInt8](repeating: 2, count: 500)))
        // But not on top of pending broadcast bytes.
        let third = m.enqueue([UInt8](repeating: 3, count: 10), kind: .event) { Array("lagged\n".utf8) }
        #expect(third == [.send(Array("lagged\n".utf8)), .close(.lagged)])
    }

    /// The direct-write fast path admits an event exactly when `enqueue` would answer only
    /// `.send` with nothing queued before, and accounts it like `enqueue`.
    @Test func admitEventIsTheIdleSubscribersFastPath() {
        var m = ConnectionStateMachine(queueLimit: 100)
        let beforeHello = m.admitEvent(10)
        #expect(!beforeHello, "not before hello")
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let beforeSubscribing = m.admitEvent(10)
        #expect(!beforeSubscribing, "not before subscribing")
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        let tooLarge = m.admitEvent(500)
        #expect(!tooLarge, "larger than the limit: the queue path decides")
        let idle = m.admitEvent(60)
        #expect(idle)
        #expect(m.queuedBytes == 60)
        let whileQueued = m.admitEvent(10)
        #expect(!whileQueued, "bytes are still queued")
        // Written partly: the rest stays accounted until drained, as with `enqueue`.
        let firstPartNeedsNothing = m.drained(40).isEmpty
        #expect(firstPartNeedsNothing)
        #expect(m.queuedBytes == 20)
        let restNeedsNothing = m.drained(20).isEmpty
        #expect(restNeedsNothing)
        let idleAgain = m.admitEvent(10)
        #expect(idleAgain)
        let drainedAgain = m.drained(10).isEmpty
        #expect(drainedAgain)
        // A request waiting in the backlog takes the queue path.
        var busy = ConnectionStateMachine(queueLimit: 100, maxPendingRequests: 1)
        _ = busy.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        _ = busy.enqueue(Array("{}\n".utf8), kind: .unsolicited)
        _ = busy.drained(3)
        _ = busy.subscriptionStarted(filter: .all, afterSeq: 0)
        _ = busy.bytesReceived(line(#"{"id":"1","op":"ping"}"#) + line(#"{"id":"2","op":"ping"}"#))
        #expect(busy.backlogCount == 1)
        let withBacklog = busy.admitEvent(10)
        #expect(!withBacklog)
    }

    @Test func shutdownStopsInputAndOutput() {
        var m = helloed()
        _ = m.enqueue([1, 2, 3], kind: .reply)
        let s1 = m.beginShutdown(subscriberNotice: Array("bye\n".utf8))
        #expect(s1 == [.pauseReading])  // not a subscriber: no notice; output still queued
        #expect(m.state == .draining(from: .active))
        let s2 = m.bytesReceived(line(#"{"id":"p","op":"ping"}"#))
        #expect(s2.isEmpty)
        let refused = m.enqueue([4], kind: .reply)
        #expect(refused.isEmpty)
        let s3 = m.endOfInput()
        #expect(s3 == [.close(.peerClosed)])
        #expect(m.state == .closing(.peerClosed, from: .active))
    }

    @Test func halfCloseWaitsForPendingReplies() {
        var m = helloed()
        // Two pings: a list would wait for the ping's answer (large replies go one at a time).
        let delivered = m.bytesReceived(line(#"{"id":"1","op":"ping"}"#) + line(#"{"id":"2","op":"ping"}"#))
        #expect(delivered.count == 2 && m.pendingReplies == 2)
        let eof = m.endOfInput()
        #expect(eof == [.pauseReading] && m.isInputClosed && m.state == .active && !m.acceptsInput)
        let r1 = m.enqueue([1, 2, 3], kind: .reply)
        #expect(r1 == [.send([1, 2, 3])])
        let d1 = m.drained(3)
        #expect(d1.isEmpty)  // one answer still due
        let r2 = m.enqueue([4], kind: .reply)
        #expect(r2 == [.send([4])])
        let d2 = m.drained(1)
        #expect(d2 == [.close(.peerClosed)])

        var idle = helloed()
        let closeNow = idle.endOfInput()
        #expect(closeNow == [.close(.peerClosed)])
    }

    @Test func pipelinedRequestsAreHeldBackBeyondPendingLimit() {
        var m = ConnectionStateMachine(queueLimit: 1000, maxPendingRequests: 2)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let burst = (1...5).flatMap { line(#"{"id":"\#($0)","op":"ping"}"#) }
        let first = m.bytesReceived(burst)
        #expect(delivered(first) == ["1", "2"])
        #expect(first.last == .pauseReading)
        #expect(m.backlogCount == 3)
        let afterOne = m.enqueue([1], kind: .reply)
        #expect(afterOne.first == .send([1]))
        #expect(delivered(afterOne) == ["3"])
        let unsolicited = m.enqueue([2], kind: .unsolicited)
        #expect(delivered(unsolicited).isEmpty)
        _ = m.enqueue([3], kind: .reply)
        let last = m.enqueue([4], kind: .reply)
        #expect(delivered(last) == ["5"])
        #expect(m.backlogCount == 0)
        let r1 = m.enqueue([5], kind: .reply)
        let r2 = m.enqueue([6], kind: .reply)
        #expect(r1 == [.send([5]), .resumeReading])  // one answer due, below the limit again
        #expect(r2 == [.send([6])])
    }

    @Test func fullOutputHoldsBackRequests() {
        var m = ConnectionStateMachine(queueLimit: 100, maxPendingRequests: 100)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        _ = m.bytesReceived(line(#"{"id":"a","op":"list"}"#))
        let big = m.enqueue([UInt8](repeating: 0, count: 150), kind: .reply)
        #expect(big.last == .pauseReading)
        let held = m.bytesReceived(line(#"{"id":"b","op":"ping"}"#))
        #expect(delivered(held).isEmpty)
        #expect(m.backlogCount == 1)
        let partial = m.drained(60)  // 90 > 50: still over the low watermark
        #expect(delivered(partial).isEmpty)
        let released = m.drained(60)
        #expect(delivered(released) == ["b"])
    }

    @Test func violationInBacklogClosesWithoutFurtherActions() {
        var m = ConnectionStateMachine(maxPendingRequests: 1)
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":1}"#))
        let first = m.bytesReceived(line(#"{"id":"1","op":"ping"}"#) + line("junk") + line(#"{"id":"3","op":"ping"}"#))
        #expect(delivered(first) == ["1"])
        let next = m.enqueue([1], kind: .reply)
        #expect(next.last == .close(.protocolViolation(.badRequest)))
        #expect(delivered(next).isEmpty)
        #expect(m.backlogCount == 0)
    }

    @Test func subscribeRequiresActive() {
        var m = ConnectionStateMachine()
        let refused = m.subscriptionStarted(filter: .all, afterSeq: 0)
        #expect(!refused && m.state == .awaitingHello)
        var a = helloed()
        let accepted = a.subscriptionStarted(filter: .all, afterSeq: 0)
        #expect(accepted)
        let stopped = a.subscriptionStopped()
        #expect(stopped && a.state == .active)
        let again = a.subscriptionStopped()
        #expect(!again, "no subscription left to stop")
    }
}
