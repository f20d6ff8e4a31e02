import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// An independent client (Python, nats-py) reads the stream and watches the bucket and
/// agrees with the file.
@Suite(
    .serialized, .enabled(if: NATSServerProcess.isInstalled && NATSInterop.hasNatsPy, "needs nats-server and nats-py"))
struct NATSInteropTests {
    @Test func natsPyReadsTheStreamAndTheBucketAndAgreesWithTheFile() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        try daemon.handAppend("1|Dune|Herbert")
        try daemon.handAppend("a.b c|Emma|Austen")
        let client = try await daemon.connect()
        _ = try await client.insert([BookDraft(name: "Ulysses", author: "Joyce")])
        _ = try await ChildProcess.run(["sed", "-i", "s/Dune/DUNE/", daemon.file], timeout: 10)
        let expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        #expect(
            await eventually(timeout: 10, interval: 0.1) {
                (try? await NATSStreamView.bucketBooks(url: server.url)) == expected
            })
        let result = try await ChildProcess.run(
            ["python3", BuildProducts.packageRoot + "/scripts/nats_interop.py", server.url], stderr: .devNull,
            timeout: 60)
        #expect(result.succeeded, "\(result)")
        let report = try JSONDecoder().decode(NATSInterop.Report.self, from: Data(result.output.utf8))
        #expect(report.bucket == expected)
        #expect(report.applied == expected)
        #expect(report.messages.first?.event == "snapshot")
        for message in report.messages where message.event == "change" {
            // `<store>:<epoch>:<seq>`, then the token booksd adds so nobody can take the id first.
            #expect(message.msgId?.hasPrefix("default:\(message.epoch):\(message.seq):t") == true)
        }
    }
}

/// What `scripts/nats_interop.py` prints.
enum NATSInterop {
    struct Report: Decodable {
        struct Message: Decodable {
            var event: String
            var epoch: String
            var seq: UInt64
            var msgId: String?
        }
        var messages: [Message]
        var applied: [Book]
        var bucket: [Book]
    }

    /// Whether `python3` can import nats-py.
    static let hasNatsPy: Bool =
        (try? ChildProcess.runBlocking(["python3", "-c", "import nats"], timeout: 30).succeeded) == true
}
