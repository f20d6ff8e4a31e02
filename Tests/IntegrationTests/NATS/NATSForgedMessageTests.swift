import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// booksd reads back only what it wrote: forged messages published into its stream (and a forged
/// bucket value) neither replace its change sets nor stop publishing. With a real nats-server.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSForgedMessageTests {
    @Test func forgedChangeSetsInTheStreamAreNotBelievedAndLaterEditsArePublished() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        let epoch = try #require(try await NATSStreamView.read(url: server.url).messages.first?.event.epoch)
        try daemon.handAppend("1|Dune|Herbert")
        try await Self.waitForBooksd(epoch, server, daemon) { $0.event.event == .change }

        // The next seq, under the id booksd used to give it: booksd's seq 2 is refused after it,
        // reads it back, finds it differs from its history, and publishes a snapshot marker.
        try await Self.forge(seq: 2, epoch: epoch, id: "forged-next", server)
        try await Self.forgeBucketValue(id: "forged-bucket", server)
        try daemon.handAppend("2|Emma|Austen")
        try await Self.waitForBooksd(epoch, server, daemon) { $0.event.event == .snapshot }
        #expect(daemon.log.contains("differs from the local history"))

        // A seq far ahead: before, booksd took the stream to be there and never published again.
        try await Self.forge(seq: 9999, epoch: epoch, id: "forged-ahead", server)
        try daemon.handAppend("3|Walden|Thoreau")
        try await Self.waitForBooksd(epoch, server, daemon) { $0.event.event == .snapshot && $0.event.seq >= 3 }
        #expect(daemon.log.contains("is ahead of this booksd's seq"))

        try daemon.handAppend("4|Ulysses|Joyce")
        let view = try await Self.waitForBooksd(epoch, server, daemon) {
            $0.event.event == .change && $0.event.inserted == [Book(id: "4", name: "Ulysses", author: "Joyce")]
        }
        // Each forgery is followed by booksd's snapshot marker: consumers re-read the bucket.
        let forged = view.messages.indices.filter { !Self.isBooksds(view.messages[$0], epoch) }
        #expect(forged.map { view.messages[$0].event.seq } == [2, 9999])
        for index in forged {
            let next = view.messages.dropFirst(index + 1).first { Self.isBooksds($0, epoch) }
            #expect(next?.event.event == .snapshot, "after \(view.messages[index].messageID ?? "?")")
        }
        let expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        #expect(expected.map(\.id) == ["1", "2", "3", "4"])
        #expect(
            await eventually(timeout: 10, interval: 0.1) {
                (try? await NATSStreamView.bucketBooks(url: server.url)) == expected
            }, "the bucket holds the books, not the forgeries")
        #expect(daemon.log.contains("is not believed"))
    }

    /// Whether `message` is one booksd published (its id carries booksd's token).
    static func isBooksds(_ message: NATSStreamView.Message, _ epoch: String) -> Bool {
        message.messageID.map { $0.hasPrefix("default:\(epoch):") && $0.contains(":t") } == true
    }

    /// Waits until the stream's last message is booksd's and satisfies `condition`; returns the stream.
    @discardableResult
    static func waitForBooksd(
        _ epoch: String, _ server: NATSServerProcess, _ daemon: FeedDaemon,
        _ condition: @escaping (NATSStreamView.Message) -> Bool
    ) async throws -> NATSStreamView {
        var view = NATSStreamView()
        let arrived = await eventually(timeout: 20, interval: 0.05) {
            view = (try? await NATSStreamView.read(url: server.url)) ?? NATSStreamView()
            return view.messages.last.map { isBooksds($0, epoch) && condition($0) } == true
        }
        if !arrived {
            throw TestSupportError(
                "booksd did not publish: \(view.messages.map(\.messageID))\n\(daemon.log.suffix(3000))")
        }
        return view
    }

    /// Publishes a forged change set `seq` inserting book `id`, as any client allowed on the subject can.
    static func forge(seq: UInt64, epoch: String, id: String, _ server: NATSServerProcess) async throws {
        let event = Event(
            event: .change, epoch: epoch, seq: seq, source: .client, time: "2026-01-01T00:00:00.000Z",
            inserted: [Book(id: id, name: "Forged", author: "Mallory")])
        var line = Array("{\"store\":\"default\",".utf8)
        line += MessageEncoder.encode(event).dropFirst().dropLast()
        let data = line
        let result: Result<Void, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                let connection = try NATSStreamView.connect(server.url)
                _ = try connection.jetStream().publish(
                    data, to: "books.default.changes", messageID: "default:\(epoch):\(seq)", timeoutMilliseconds: 5000)
            }
        }
        try result.get()
    }

    /// Puts a book booksd does not have into its bucket.
    static func forgeBucketValue(id: String, _ server: NATSServerProcess) async throws {
        let value = Array("{\"id\":\"\(id)\",\"name\":\"Forged\",\"author\":\"Mallory\",\"version\":1}".utf8)
        let result: Result<Void, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                _ = try NATSStreamView.connect(server.url).jetStream().keyValue("books_default").put(id, value)
            }
        }
        try result.get()
    }
}
