import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

@testable import BooksDaemon

/// Hello, replies, protocol violations, flow control and half-close.
extension SocketServerTests {
    @Test func helloIsRequiredAndAnswered() throws {
        let dir = try TemporaryDirectory()
        let delegate = TestDelegate()
        delegate.seq.store(7, ordering: .relaxed)
        let server = try makeServer(dir, delegate: delegate)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }

        let rude = try #require(TestClient(path: dir.socketPath))
        rude.send(#"{"id":"p1","op":"ping"}"#)
        let refused = rude.readReply()
        #expect(refused?.error?.code == .helloRequired)
        #expect(refused?.id == "p1")
        #expect(rude.isClosedByServer())

        let polite = try #require(TestClient(path: dir.socketPath))
        let hello = polite.hello(id: "h1")
        #expect(
            hello == .success("h1", ReplyResult(protocolVersion: 1, server: "booksd test", epoch: "test-epoch", seq: 7))
        )

        let old = try #require(TestClient(path: dir.socketPath))
        old.send(#"{"id":"h","op":"hello","version":0}"#)
        #expect(old.readReply()?.error?.code == .unsupportedVersion)
        #expect(old.isClosedByServer())
    }

    @Test func repliesMatchRequestIDsAndUnknownOpKeepsConnection() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        client.send(
            #"{"id":"a","op":"ping"}"# + "\n" + #"{"id":2,"op":"list"}"# + "\n" + #"{"id":"u","op":"warp"}"# + "\n"
                + #"{"id":"q","op":"list","filter":{"conditions":"#
                + #"[{"field":"author","op":"equals","value":"Jane Austen"}]}}"#
        )
        var byID: [String: Reply] = [:]
        for _ in 0..<4 {
            let reply = try #require(client.readReply())
            byID[reply.id ?? "null"] = reply
        }
        #expect(byID["a"]?.ok == true)
        #expect(byID["2"]?.result?.books == TestDelegate.sampleBooks)
        #expect(byID["u"]?.error?.code == .unknownOp)
        #expect(byID["q"]?.result?.books?.map(\.id) == ["2", "3"])
        client.send(#"{"id":"after","op":"ping"}"#)
        #expect(client.readReply()?.id == "after")
    }

    @Test func garbageDisconnectsOnlyTheOffender() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let good = try #require(TestClient(path: dir.socketPath))
        #expect(good.hello()?.ok == true)

        let cases: [([UInt8], ProtocolError.ErrorCode)] = [
            (Array("this is not json\n".utf8), .badRequest),
            ([UInt8(ascii: "{"), 0xFF, 0xFE, UInt8(ascii: "}"), 10], .invalidUTF8),
            (Array((String(repeating: "[", count: 10_000) + "\n").utf8), .tooDeep),
            (Array(#"{"id":"w","op":"list","limit":"x"}"#.utf8) + [10], .badRequest),
        ]
        for (index, (bytes, code)) in cases.enumerated() {
            let bad = try #require(TestClient(path: dir.socketPath))
            #expect(bad.hello()?.ok == true)
            bad.send(bytes)
            #expect(bad.readReply()?.error?.code == code, "case \(index)")
            #expect(bad.isClosedByServer(), "case \(index)")
            good.send(#"{"id":"g\#(index)","op":"ping"}"#)
            #expect(good.readReply()?.id == "g\(index)")
        }
        #expect(eventuallyBlocking(timeout: 5) { server.statistics.violations == cases.count })
    }

    @Test func oversizeLineIsRejectedWithBoundedMemory() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.maxRequestBytes = 64 * 1024 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        #expect(client.hello()?.ok == true)
        // 8 MiB without a newline; the server gives up after 64 KiB, so the send may fail midway.
        client.send([UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20))
        #expect(client.readReply()?.error?.code == .tooLarge)
        #expect(client.isClosedByServer())
        let other = try #require(TestClient(path: dir.socketPath))
        #expect(other.hello()?.ok == true)
    }

    @Test func halfClosedClientStillGetsItsReplies() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        client.send(
            #"{"id":"h","op":"hello","version":1}"# + "\n" + #"{"id":"l","op":"list"}"# + "\n"
                + #"{"id":"p","op":"ping"}"#)
        _ = Glibc.shutdown(client.fd, Int32(SHUT_WR))
        #expect(client.readReply()?.id == "h")
        #expect(client.readReply()?.result?.books == TestDelegate.sampleBooks)
        #expect(client.readReply()?.id == "p")
        #expect(client.isClosedByServer())
    }

    @Test func pipeliningWithoutReadingIsBounded() throws {
        let dir = try TemporaryDirectory()
        let delegate = TestDelegate(
            books: (0..<50).map { Book(id: "\($0)", name: String(repeating: "n", count: 200), author: "a") })
        let server = try makeServer(dir, delegate: delegate) { $0.clientQueueBytes = 32 * 1024 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let hog = try #require(TestClient(path: dir.socketPath))
        #expect(hog.hello()?.ok == true)
        let total = 3000
        // ~12 KB list replies; 3000 of them would be ~36 MB if the server buffered them all.
        let burst = (0..<total).map { #"{"id":"\#($0)","op":"list"}"# }.joined(separator: "\n") + "\n"
        hog.send(Array(burst.utf8), timeout: 1)  // may stop early once the server stops reading
        MonotonicClock.sleep(seconds: 0.3)
        let handled = delegate.received.withLock { $0.count }
        #expect(handled < total / 2, "the server kept delivering requests whose replies nobody reads")
        let other = try #require(TestClient(path: dir.socketPath))
        #expect(other.hello()?.ok == true)
        other.send(#"{"id":"o","op":"ping"}"#)
        #expect(other.readReply()?.id == "o")
        // Once the hog reads, it gets answers in order (for all it managed to send).
        for i in 0..<min(handled + 10, total) {
            let reply = hog.readReply()
            #expect(reply?.id == "\(i)")
            if reply?.id != "\(i)" { break }
        }
    }

    @Test func tricklingBytesWork() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir)
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let client = try #require(TestClient(path: dir.socketPath))
        for byte in Array(#"{"id":"t","op":"hello","version":1}"#.utf8) + [10] { client.send([byte]) }
        #expect(client.readReply()?.id == "t")
    }

    @Test func silentConnectionsAreClosedAfterHelloTimeout() throws {
        let dir = try TemporaryDirectory()
        let server = try makeServer(dir) { $0.helloTimeout = .milliseconds(200) }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        let silent = try #require(TestClient(path: dir.socketPath))
        let start = ContinuousClock().now
        #expect(silent.readReply()?.error?.code == .helloRequired)
        #expect(silent.isClosedByServer())
        #expect(ContinuousClock().now - start < .seconds(3))
        // A client that said hello is not affected.
        let polite = try #require(TestClient(path: dir.socketPath))
        #expect(polite.hello()?.ok == true)
        MonotonicClock.sleep(seconds: 0.4)
        polite.send(#"{"id":"still","op":"ping"}"#)
        #expect(polite.readReply()?.id == "still")
    }
}
