import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// A second booksd for the same store does not publish, says why, and takes over when
/// the owner is gone.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSOwnershipTests {
    @Test func aSecondBooksdForTheSameStoreWaitsAndTakesOverWhenTheOwnerDies() async throws {
        let (server, owner) = try await NATSFeedTests.publishingDaemon(rows: ["1|Dune|Herbert"])
        let second = try await FeedDaemon(rows: ["9|Walden|Thoreau"], settings: ["nats_url=\(server.url)"])
        #expect(await eventually(timeout: 10) { second.log.contains("is owned by") }, "\(second.log.suffix(1500))")
        try second.handAppend("10|Emma|Austen")
        try owner.handAppend("2|Beloved|Morrison")
        let ownerBooks = try owner.fileBooks().sorted { $0.id < $1.id }
        #expect(
            await eventually(timeout: 10, interval: 0.1) {
                (try? await NATSStreamView.bucketBooks(url: server.url)) == ownerBooks
            })
        let before = try await NATSStreamView.read(url: server.url)
        #expect(Set(before.messages.map(\.event.epoch)).count == 1, "only the owner published")

        owner.crash()
        let secondBooks = try second.fileBooks().sorted { $0.id < $1.id }
        let tookOver = await eventually(timeout: 20, interval: 0.2) {
            (try? await NATSStreamView.bucketBooks(url: server.url)) == secondBooks
        }
        #expect(tookOver, "\(second.log.suffix(1500))")
        let after = try await NATSStreamView.read(url: server.url)
        #expect(after.continuityProblems.isEmpty, "\(after.continuityProblems)")
        #expect(after.messages.last?.event.event == .snapshot, "the new owner starts with a snapshot marker")
        let remote = try NATSBooksClient(options: .init(urls: [server.url]))
        #expect(
            await eventually(timeout: 10, interval: 0.1) { (try? await remote.list().books.count) == 2 },
            "requests now reach the new owner")
    }
}
