import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksMachines

/// In the pure machine: requests whose reply can be large are delivered one at
/// a time per connection, and only while its output is at most half of the limit.
@Suite struct ConnectionStateMachineLargeReplyTests: ConnectionMachineSuite {
    @Test func pipelinedListsAreDeliveredOneAtATimeBelowHalfTheLimit() {
        var m = helloed(queueLimit: 1000)
        let burst = (0..<64).flatMap { line(#"{"id":"\#($0)","op":"list"}"#) }
        let first = m.bytesReceived(burst)
        #expect(delivered(first) == ["0"], "only one list may be in flight")
        #expect(first.last == .pauseReading)
        #expect(m.backlogCount == 63)
        // Its reply takes the output over half the limit (500): the next list waits for the drain.
        let reply = m.enqueue([UInt8](repeating: 0x20, count: 700), kind: .reply)
        #expect(delivered(reply).isEmpty)
        let halfDrained = delivered(m.drained(150))
        #expect(halfDrained.isEmpty, "550 bytes queued: still over half the limit")
        let belowHalf = delivered(m.drained(100))
        #expect(belowHalf == ["1"], "450 bytes queued: the next list goes")
        #expect(m.backlogCount == 62)
        // A small reply keeps the output below half: the following list goes at once.
        let smallReply = delivered(m.enqueue([1], kind: .reply))
        #expect(smallReply == ["2"])
        #expect(m.pendingReplies == 1)
    }

    @Test func cheapRequestsPipelineButWaitAroundLargeOnes() {
        var m = helloed(queueLimit: 1000)
        let burst = m.bytesReceived(
            line(#"{"id":"p1","op":"ping"}"#) + line(#"{"id":"p2","op":"ping"}"#)
                + line(#"{"id":"g","op":"get","ids":["1"]}"#) + line(#"{"id":"p3","op":"ping"}"#))
        #expect(delivered(burst) == ["p1", "p2"], "pings pipeline; get waits until they are answered")
        let afterP1 = delivered(m.enqueue([1], kind: .reply))
        #expect(afterP1.isEmpty)
        let second = delivered(m.enqueue([2], kind: .reply))
        #expect(second == ["g"], "nothing after a large one while it is in flight")
        let third = delivered(m.enqueue([3], kind: .reply))
        #expect(third == ["p3"])
        #expect(ConnectionStateMachine.isExclusive(.status) && ConnectionStateMachine.isExclusive(.subscribe))
        #expect(!ConnectionStateMachine.isExclusive(.insert) && !ConnectionStateMachine.isExclusive(.ping))
    }

    @Test func listWaitsForASubscribersQueueToDrain() {
        var m = helloed(queueLimit: 100)
        let started = m.subscriptionStarted(filter: .all, afterSeq: 0)
        #expect(started)
        _ = m.enqueue([UInt8](repeating: 0, count: 60), kind: .event)
        _ = m.bytesReceived(line(#"{"id":"l","op":"list"}"#))
        #expect(m.backlogCount == 1, "60 > 50: the list is held")
        let afterDrain = delivered(m.drained(60))
        #expect(afterDrain == ["l"])
    }
}
