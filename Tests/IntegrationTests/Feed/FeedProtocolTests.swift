import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

extension FeedTests {
    @Test("a subscriber that stops reading is disconnected; another keeps receiving every change")
    func stalledSubscriberIsDisconnected() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"], settings: ["client_queue_bytes=4K"])
        let stalled = try LineClient(path: daemon.socket, receiveBufferSize: 4096)
        _ = try stalled.helloReply()
        stalled.sendRaw("{\"id\":\"s\",\"op\":\"subscribe\"}\n")
        // ...and never reads again.
        let good = try await daemon.connect("good")
        let feed = FeedRecorder(good.changes())
        let writer = try await daemon.connect("writer")
        #expect(await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) == 2 })

        // 12 changes of 50 books with 1 KiB names: ~600 KiB of events, far beyond the socket
        // buffers plus 4 KiB of queue.
        let longName = String(repeating: "x", count: 1024)
        let started = ContinuousClock.now
        for k in 1...12 {
            _ = try await writer.insert((1...50).map { BookDraft(id: "k\(k)-\($0)", name: longName, author: "A\(k)") })
        }
        await feed.waitForSeq(12, timeout: .seconds(10))
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(feed.changes.map(\.seq) == Array(1...12))
        #expect(feed.changes.allSatisfy { $0.changes.inserted.count == 50 })
        #expect(
            await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) == 1 },
            "the stalled subscriber was not dropped")

        // What the stalled client finds when it finally reads: its snapshot, a gap-free prefix of
        // the feed, then (best effort: only if it fitted in the socket buffer) the lag notice,
        // then end of stream.
        var seqs: [Int] = []
        var events: [String] = []
        while let line = stalled.readJSON(timeout: 5) {
            events.append(line["event"] as? String ?? "reply")
            if line["event"] as? String == "change", let seq = line["seq"] as? Int { seqs.append(seq) }
        }
        #expect(seqs == Array(1..<(seqs.count + 1)), "stalled client got seqs \(seqs)")
        #expect(seqs.count < 12, "the stalled client received everything: it never lagged")
        #expect(events.prefix(2) == ["reply", "snapshot"])
        if let last = events.last, last != "change" { #expect(last == "resync-required") }
        #expect(stalled.isClosedByPeer(timeout: 10))
        // The good subscriber still gets new changes promptly.
        _ = try await writer.update([BookPatch(id: "b1", name: "Persuasion")])
        await feed.waitForSeq(13, timeout: .seconds(10))
        feed.cancel()
        daemon.stop()
    }

    @Test("garbage gets the right error codes; violations disconnect; well-behaved clients keep working")
    func garbageInput() async throws {
        let daemon = try await FeedDaemon(
            rows: ["b1|Emma|Jane Austen"],
            settings: ["max_request_bytes=16K", "hello_timeout_seconds=1"])
        let good = try await daemon.connect("good")
        let feed = FeedRecorder(good.changes())
        let writer = try await daemon.connect("writer")
        var seq: UInt64 = 0
        func stillWorks(_ what: String) async throws {
            #expect(try await good.ping() != nil, "ping after \(what)")
            seq += 1
            _ = try await writer.update([BookPatch(id: "b1", name: "Emma \(seq)")])
            await feed.waitForSeq(seq, timeout: .seconds(10))
        }

        // A violation after hello: the error line, then the daemon hangs up.
        func violation(_ bytes: [UInt8], _ code: String, id: String? = nil, _ what: String) async throws {
            let raw = try LineClient(path: daemon.socket)
            _ = try raw.helloReply()
            raw.sendRaw(bytes)
            let reply = raw.readJSON()
            #expect(feedErrorCode(reply) == code, "\(what): \(String(describing: reply))")
            #expect(reply?["ok"] as? Bool == false)
            #expect((reply?["id"] as? String) == id, "\(what): id")
            #expect(raw.isClosedByPeer(timeout: 10), "\(what): not disconnected")
            try await stillWorks(what)
        }
        try await violation(Array("this is not json\n".utf8), "bad-request", "non-JSON")
        try await violation([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x0A], "invalid-utf8", "invalid UTF-8")
        try await violation(
            Array("{\"id\":\"w\",\"op\":\"list\",\"limit\":\"ten\"}\n".utf8), "bad-request", id: "w", "wrong type")
        try await violation(Array("{\"id\":true,\"op\":\"ping\"}\n".utf8), "bad-request", "id of wrong type")
        try await violation(Array("[1,2]\n".utf8), "bad-request", "not an object")
        try await violation(Array((String(repeating: "[", count: 10_000) + "\n").utf8), "too-deep", "deep nesting")
        try await violation(
            Array(
                ("{\"id\":\"big\",\"op\":\"ping\",\"client\":\"" + String(repeating: "y", count: 20_000) + "\"}\n").utf8
            ),
            "too-large", "over-long line")
        try await violation(
            Array("{\"id\":\"v\",\"op\":\"hello\",\"version\":0}\n".utf8), "unsupported-version", id: "v",
            "second hello, wrong version")

        // Unknown op: an error reply, and the connection stays usable.
        do {
            let raw = try LineClient(path: daemon.socket)
            _ = try raw.helloReply()
            raw.sendRaw("{\"id\":7,\"op\":\"frobnicate\"}\n")
            let reply = raw.readJSON()
            #expect(feedErrorCode(reply) == "unknown-op")
            #expect(reply?["id"] as? String == "7", "numeric ids come back as text")
            raw.sendRaw("{\"id\":\"p\",\"op\":\"ping\"}\n")
            let pong = raw.readJSON()
            #expect(pong?["ok"] as? Bool == true, "\(String(describing: pong))")
            #expect(!raw.isClosedByPeer(timeout: 0.1))
            try await stillWorks("unknown op")
        }

        // A request before hello: hello-required and disconnect.
        do {
            let raw = try LineClient(path: daemon.socket)
            raw.sendRaw("{\"id\":\"early\",\"op\":\"ping\"}\n")
            let reply = raw.readJSON()
            #expect(feedErrorCode(reply) == "hello-required")
            #expect(reply?["id"] as? String == "early")
            #expect(raw.isClosedByPeer(timeout: 10))
        }

        // A line that never ends: no answer, nothing blocks; once it outgrows the limit: too-large.
        do {
            let raw = try LineClient(path: daemon.socket)
            _ = try raw.helloReply()
            raw.sendRaw("{\"id\":\"partial\",\"op\":\"pi")
            #expect(raw.readLine(timeout: 0.3) == nil)
            try await stillWorks("partial line")
            raw.sendRaw(String(repeating: "n", count: 17_000))
            let reply = raw.readJSON()
            #expect(feedErrorCode(reply) == "too-large", "\(String(describing: reply))")
            #expect(raw.isClosedByPeer(timeout: 10))
        }

        // Never says hello (timeout 1 s), also with a partial line pending.
        do {
            let silent = try LineClient(path: daemon.socket)
            let partial = try LineClient(path: daemon.socket)
            partial.sendRaw("{\"id\":\"h\",\"op\":\"hel")
            let started = ContinuousClock.now
            for raw in [silent, partial] {
                let reply = raw.readJSON(timeout: 10)
                #expect(feedErrorCode(reply) == "hello-required", "\(String(describing: reply))")
                #expect(reply?["id"] is NSNull)
                #expect(raw.isClosedByPeer(timeout: 10))
            }
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(800) && waited < .seconds(8), "hello timeout took \(waited)")
            try await stillWorks("hello timeout")
        }
        let status = try await good.status()
        #expect(status.clients == 2)
        feed.cancel()
        daemon.stop()
    }
}
