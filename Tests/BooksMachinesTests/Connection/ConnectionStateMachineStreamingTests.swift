import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// Streamed lists and snapshots in the pure machine: chunks only under the page budget, nothing
/// interleaved, the list counted as the request's reply.
@Suite struct ConnectionStateMachineStreamingTests: ConnectionMachineSuite {
    /// 2,000 books (about 120 KB of JSON).
    static let context: BookLedger = {
        let text = (0..<2000).map { "id-\($0)|Name \($0)|Author\n" }.joined()
        return BookLedger(document: BookDocument(parsing: Array(text.utf8)))
    }()

    func list(_ id: String) -> BookStreamEncoder {
        BookStreamEncoder(
            .listReply(id: id), epoch: "E", seq: 0, cursor: try! BookCursor(context: Self.context, query: BookQuery()),
            framing: .singleLine)
    }

    func sent(_ actions: [Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let bytes) = $0 { return bytes } else { return nil } }
    }

    @Test func chunksAreProducedOnlyUnderTheBudgetAndAddUpToTheReply() {
        var m = helloed(pageBudget: 8192)
        _ = m.bytesReceived(line(#"{"id":"l","op":"list"}"#))
        var output = sent(m.startStream(list("l")))
        #expect(m.queuedBytes >= 8192 && m.queuedBytes < 8192 + 4096, "queued \(m.queuedBytes)")
        #expect(m.isStreaming)
        while m.isStreaming {
            let queued = m.queuedBytes
            output += sent(m.drained(queued))
            #expect(m.queuedBytes < 8192 + 4096)
        }
        var whole = list("l")
        #expect(Array(output.joined()) == whole.encodeRest())
        #expect(m.pendingReplies == 0)
    }

    @Test func eventsWaitForTheStreamAndRequestsAreNotDeliveredMeanwhile() {
        var m = helloed(pageBudget: 4096)
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        _ = m.bytesReceived(line(#"{"id":"l","op":"list"}"#))
        _ = m.startStream(list("l"))
        let event = Array("{\"event\":\"heartbeat\"}\n".utf8)
        #expect(sent(m.enqueue(event, kind: .event)).isEmpty, "held back during the stream")
        let admitted = m.admitEvent(10)
        #expect(!admitted, "no direct send during the stream")
        let ping = m.bytesReceived(line(#"{"id":"p","op":"ping"}"#))
        #expect(delivered(ping).isEmpty, "no request while the list streams")
        var last: [Action] = []
        while m.isStreaming { last = m.drained(m.queuedBytes) }
        let tail = sent(last)
        #expect(tail.last == event, "the held event follows the last chunk")
        #expect(tail.dropLast().last?.last == UInt8(ascii: "\n"), "the chunk before it ends the line")
        #expect(delivered(last) == ["p"], "the ping is delivered once the list is answered")
    }

    @Test func aStreamArrivingDuringAnotherWaitsBehindItAndWhatCameBefore() {
        var m = helloed(pageBudget: 4096)
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        var output = sent(m.startStream(list("a")))
        let event = Array("{\"event\":\"heartbeat\"}\n".utf8)
        _ = m.enqueue(event, kind: .event)
        #expect(sent(m.startStream(list("b"))).isEmpty)
        while m.isStreaming { output += sent(m.drained(m.queuedBytes)) }
        var a = list("a")
        var b = list("b")
        #expect(Array(output.joined()) == a.encodeRest() + event + b.encodeRest())
    }

    @Test func eventsHeldBehindAQueuedStreamStillCountTowardsTheLagLimit() {
        var m = helloed(queueLimit: 4096, pageBudget: 4096)
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        _ = m.startStream(list("a"))
        let first = Array("{\"event\":\"heartbeat\"}\n".utf8)
        _ = m.enqueue(first, kind: .event)
        _ = m.startStream(list("b"))
        _ = m.enqueue([UInt8](repeating: 0x20, count: 1500), kind: .event)
        var released = false
        while !released { released = sent(m.drained(m.queuedBytes)).contains(first) }
        #expect(m.isStreaming, "b runs now, the 1,500-byte event held behind it")
        let fits = m.enqueue([UInt8](repeating: 0x20, count: 2000), kind: .event)
        #expect(sent(fits).isEmpty && m.state.isLive, "1,500 + 2,000 bytes of events fit the 4,096-byte limit")
        let over = m.enqueue([UInt8](repeating: 0x20, count: 1000), kind: .event)
        #expect(over == [.close(.lagged)], "the event held since stream a still counts: 4,500 bytes lag")
    }

    @Test func aStalledReaderLagsOnEventsAndAShutdownMidLineSendsNoNotice() {
        var m = helloed(queueLimit: 2048, pageBudget: 4096)
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        _ = m.startStream(list("x"))
        let event = [UInt8](repeating: 0x20, count: 1500)
        #expect(sent(m.enqueue(event, kind: .event)).isEmpty)
        let lagged = m.enqueue(event, kind: .event) { Array("lag\n".utf8) }
        #expect(lagged == [.close(.lagged)], "over the limit, and no notice in the middle of a line")

        var n = helloed(pageBudget: 4096)
        _ = n.subscriptionStarted(filter: .all, afterSeq: 0)
        _ = n.startStream(list("y"))
        let shutdown = n.beginShutdown(subscriberNotice: Array("bye\n".utf8))
        #expect(sent(shutdown).isEmpty, "the notice would land inside the unfinished line")
        #expect(!n.isStreaming)
    }
}

extension ConnectionStateMachineStreamingTests {
    /// A write refused while a snapshot streams: its failure is held behind the stream and counts
    /// as its answer, so the connection's next large request is still delivered.
    @Test func aFailureHeldBehindAStreamAnswersItsRequest() {
        var m = helloed(pageBudget: 4096)
        let write = m.bytesReceived(line(#"{"id":"w","op":"delete","ids":["id-1"]}"#))
        #expect(delivered(write) == ["w"])
        _ = m.subscriptionStarted(filter: .all, afterSeq: 0)
        let snapshot = BookStreamEncoder(
            .snapshot, epoch: "E", seq: 0, cursor: try! BookCursor(context: Self.context, query: BookQuery()),
            framing: .pages)
        _ = m.startStream(snapshot)
        let refusal = MessageEncoder.encode(Reply.failure("w", ProtocolError(.notFound, "no book id-1")))
        #expect(sent(m.enqueue(refusal, kind: .failure)).isEmpty, "held back during the stream")
        var output: [[UInt8]] = []
        while m.isStreaming { output += sent(m.drained(m.queuedBytes)) }
        #expect(output.last == refusal, "the failure follows the snapshot")
        #expect(m.pendingReplies == 0, "the failure answered the write")
        _ = m.drained(m.queuedBytes)
        let list = m.bytesReceived(line(#"{"id":"l","op":"list"}"#))
        #expect(delivered(list) == ["l"], "a list after the failure is delivered, not held for ever")
    }
}
