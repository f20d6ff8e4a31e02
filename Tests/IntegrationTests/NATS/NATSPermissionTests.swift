import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import Testing

/// The shipped `config/nats-server.conf.example`: booksd, a reader and a writer user.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSPermissionTests {
    @Test func theExampleConfigurationLetsWritersWriteAndReadersOnlyRead() async throws {
        let scratch = try TemporaryDirectory(prefix: "natsperm")
        let example = try #require(TestFiles.readText(BuildProducts.packageRoot + "/config/nats-server.conf.example"))
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.contains("store_dir:") && !$0.hasPrefix("listen:")
        }
        let config = try scratch.write("nats-server.conf", lines.joined(separator: "\n"))
        let server = try NATSServerProcess(directory: scratch.path, configFile: config)
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Herbert"],
            settings: ["nats_url=\(server.url)", "nats_user=booksd", "nats_password=change-me-booksd"])
        func booksctl(_ user: String, _ arguments: [String]) async throws -> ChildResult {
            try await ChildProcess.run(
                [
                    BuildProducts.booksctl, "--nats", server.url, "--nats-user", user, "--nats-password",
                    "change-me-\(user)",
                ]
                    + arguments, timeout: 30)
        }
        // Requests are answered once booksd owns the store (its lease, taken right after start);
        // until then the server reports no responders, and nothing is written.
        var written = ChildResult(status: -1, output: "")
        let answered = await eventually(timeout: 15, interval: 0.1) {
            written = (try? await booksctl("writer", ["add", "Emma", "Austen"])) ?? written
            return written.succeeded
        }
        #expect(answered, "\(written)")
        let refused = try await booksctl("reader", ["add", "Walden", "Thoreau"])
        #expect(!refused.succeeded)
        #expect(refused.output.contains("Permissions Violation for Publish to \"books.default.api\""), "\(refused)")
        #expect(try daemon.fileBooks().count == 2, "the reader's write did not happen")
        let wrongPassword = try await ChildProcess.run(
            [BuildProducts.booksctl, "--nats", server.url, "--nats-user", "reader", "--nats-password", "x", "list"],
            timeout: 30)
        #expect(wrongPassword.output.contains("Authorization Violation"), "\(wrongPassword)")
        let subscriber = try ChildProcess.spawn(
            [
                BuildProducts.booksctl, "--nats", server.url, "--nats-user", "reader", "--nats-password",
                "change-me-reader", "subscribe", "--json", "--since", "0",
            ],
            stdout: .appendFile(scratch.file("reader.out")), stderr: .appendFile(scratch.file("reader.err")))
        defer { _ = subscriber.kill() }
        let seen = await eventually(timeout: 15, interval: 0.05) {
            (scratch.readText("reader.out") ?? "").contains("\"name\":\"Emma\"")
        }
        #expect(seen, "the reader follows the stream: \(scratch.readText("reader.err") ?? "")")

        let refusedDaemon = try await FeedDaemon(
            rows: ["1|Dune|Herbert"],
            settings: ["nats_url=\(server.url)", "nats_user=booksd", "nats_password=wrong", "nats_prefix=other"])
        let local = try await refusedDaemon.connect()
        _ = try await local.insert([BookDraft(name: "Emma", author: "Austen")])
        #expect(try await local.list().books.count == 2, "bad credentials do not stop local service")
        #expect(refusedDaemon.log.contains("NATS connection closed for good"), "\(refusedDaemon.log.suffix(1500))")
    }
}
