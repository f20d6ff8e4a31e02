import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Testing

/// Bad NATS credentials: the connection the server refused is closed for good with one clear
/// log line (no retry loop hammering the server), and the local daemon keeps serving.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSCredentialsTests {
    @Test func refusedCredentialsCloseTheConnectionForGoodAndLocalClientsAreServed() async throws {
        let server = try NATSServerProcess(extraArguments: ["--user", "booksd", "--pass", "right"])
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Herbert"],
            settings: ["nats_url=\(server.url)", "nats_user=booksd", "nats_password=wrong"])
        let closed = await eventually(timeout: 15) { daemon.log.contains("NATS connection closed for good") }
        #expect(closed, "\(daemon.log.suffix(2000))")
        #expect(daemon.log.contains("Authorization Violation"), "the reason is named: \(daemon.log.suffix(2000))")
        func refusals() -> Int {
            (TestFiles.readText(server.logPath) ?? "").split(separator: "\n").filter {
                $0.lowercased().contains("authorization") || $0.lowercased().contains("authentication")
            }.count
        }
        let before = refusals()
        #expect(before >= 1, "the server logged the refusal: \(TestFiles.readText(server.logPath) ?? "")")
        try await Task.sleep(for: .seconds(3))  // 6 reconnect waits
        #expect(refusals() == before, "no retry after the refusal")
        let closedLines = daemon.log.split(separator: "\n").filter { $0.contains("closed for good") }
        #expect(closedLines.count == 1, "one log line, not one per attempt")

        let client = try await daemon.connect()
        _ = try await client.insert([BookDraft(name: "Emma", author: "Austen")])
        #expect(try await client.list().books.count == 2, "the local daemon keeps serving")
        #expect(try daemon.fileBooks().count == 2)
    }
}
