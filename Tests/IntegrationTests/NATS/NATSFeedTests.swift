import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

/// The change feed over NATS JetStream, with real `nats-server` processes.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSFeedTests {
    @Test func everyEditMethodReachesARemoteSubscriberOnceInOrder() async throws {
        let (server, daemon) = try await Self.publishingDaemon(rows: ["# books"])
        let subscriber = try NATSRemoteSubscriber(url: server.url, directory: daemon.directory)
        let file = daemon.file

        let edits: [(String, [String])] = [
            ("script append", ["sh", "-c", "echo '1|Dune|Herbert' >> '\(file)'"]),
            ("sed -i append", ["sed", "-i", "$a 2|Emma|Austen", file]),
            ("client write", [BuildProducts.booksctl, "--socket", daemon.socket, "add", "Ulysses", "Joyce"]),
            ("remote write", [BuildProducts.booksctl, "--nats", server.url, "add", "Remote", "Writer"]),
            ("sed -i update", ["sed", "-i", "s/Emma|Austen/Emma|Jane Austen/", file]),
            ("sed -i delete", ["sed", "-i", "/^1|/d", file]),
        ]
        for (index, (method, argv)) in edits.enumerated() {
            let result = try await ChildProcess.run(argv, timeout: 20)
            #expect(result.succeeded, "\(method): \(result)")
            #expect(await subscriber.waitForLines(index + 1), "\(method) did not reach the remote subscriber")
        }
        let lines = subscriber.lines
        #expect(lines.map(\.seq) == Array(1...6))
        #expect(lines.map(\.kind) == ["insert", "insert", "insert", "insert", "update", "delete"])
        #expect(lines.map(\.source) == ["file", "file", "client", "nats", "file", "file"])
        #expect(lines[4].author == "Jane Austen" && lines[5].id == "1")

        let fileBooks = try daemon.fileBooks().sorted { $0.id < $1.id }
        let view = try await NATSStreamView.read(url: server.url)
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        #expect(view.messages.map(\.event.event) == [.snapshot] + Array(repeating: .change, count: 6))
        #expect(view.applied(to: []) == fileBooks)
        #expect(try await NATSStreamView.bucketBooks(url: server.url) == fileBooks)
    }

    @Test func aKilledAndRestartedNATSServerLeavesNoGapOrDuplicate() async throws {
        let (server, daemon) = try await Self.publishingDaemon(rows: ["# books"])
        let client = try await daemon.connect()
        for round in 0..<3 {
            for i in 0..<10 { try daemon.handAppend("h\(round)-\(i)|Hand \(i)|Round \(round)") }
            _ = try await client.insert((0..<10).map { BookDraft(name: "Client \($0)", author: "Round \(round)") })
            if round == 0 { server.kill() }
            if round == 1 { try server.start() }
        }
        let expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        #expect(expected.count == 60)
        var view = NATSStreamView()
        let caughtUp = await eventually(timeout: 20, interval: 0.2) {
            view = (try? await NATSStreamView.read(url: server.url)) ?? NATSStreamView()
            return view.applied(to: []) == expected
        }
        #expect(caughtUp, "the stream did not catch up: \(view.changePositions.suffix(5))\n\(daemon.log.suffix(3000))")
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        #expect(view.messages.filter { $0.event.event == .snapshot }.count == 1, "caught up change by change")
        #expect(try await NATSStreamView.bucketBooks(url: server.url) == expected)
        #expect(daemon.log.contains("NATS connection lost") && daemon.log.contains("NATS connection back"))
    }

    @Test func editsWhileNATSIsUnreachableAreCaughtUpAndLocalClientsAreNotDelayed() async throws {
        let server = try NATSServerProcess()
        let daemon = try await FeedDaemon(rows: ["# books"], settings: ["nats_url=\(server.url)", "nats_buffer=16"])
        try await Self.waitForInitialSnapshot(server)
        server.kill()
        let client = try await daemon.connect()
        let clock = ContinuousClock()
        let started = clock.now
        for i in 0..<200 {
            if i % 4 == 0 {
                try daemon.handAppend("h\(i)|Hand \(i)|Offline")
            } else {
                _ = try await client.insert([BookDraft(name: "Client \(i)", author: "Offline")])
            }
        }
        let local = clock.now - started
        #expect(local < .seconds(60), "200 local edits took \(local) with NATS down")
        #expect(try await client.list().books.count >= 150, "local clients are served while NATS is down")
        try server.start()
        try await eventuallySettled(daemon)
        let expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        var view = NATSStreamView()
        let caughtUp = await eventually(timeout: 30, interval: 0.2) {
            view = (try? await NATSStreamView.read(url: server.url)) ?? NATSStreamView()
            return view.applied(to: []) == expected
        }
        #expect(caughtUp, "the stream did not catch up: \(view.changePositions.suffix(3))\n\(daemon.log.suffix(3000))")
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        #expect(try await NATSStreamView.bucketBooks(url: server.url) == expected)
    }

    /// With its durable history, a booksd killed with -9 continues its epoch: the stream goes on
    /// with the down-time edits as the next change set (no second snapshot marker); without a
    /// history (`state_directory=none`) a new epoch starts with a snapshot marker and the bucket is
    /// reconciled.
    @Test(arguments: [true, false])
    func aKilledAndRestartedBooksdContinuesTheStreamOrReconcilesTheBucket(history: Bool) async throws {
        let server = try NATSServerProcess()
        let daemon = try await FeedDaemon(
            rows: ["# books", "1|Dune|Herbert", "2|Emma|Austen"],
            settings: ["nats_url=\(server.url)"] + (history ? [] : ["state_directory=none"]))
        try daemon.handAppend("3|Ulysses|Joyce")
        #expect(await eventually(timeout: 10) { (try? await NATSStreamView.bucketBooks(url: server.url).count) == 3 })
        daemon.crash()
        try daemon.handWrite("# books\n2|Emma|Jane Austen\n3|Ulysses|Joyce\n4|Walden|Thoreau\n")
        try await daemon.start()
        var expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        var bucket: [Book] = []
        #expect(
            await eventually(timeout: 15, interval: 0.1) {
                bucket = (try? await NATSStreamView.bucketBooks(url: server.url)) ?? []
                return bucket == expected
            }, "bucket \(bucket) file \(expected)")
        try daemon.handAppend("5|Beloved|Morrison")
        expected = try daemon.fileBooks().sorted { $0.id < $1.id }
        #expect(
            await eventually(timeout: 15, interval: 0.1) {
                (try? await NATSStreamView.bucketBooks(url: server.url)) == expected
            })
        let view = try await NATSStreamView.read(url: server.url)
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        let kinds = view.messages.map(\.event.event)
        #expect(kinds.filter { $0 == .snapshot }.count == (history ? 1 : 2) && kinds.last == .change, "\(kinds)")
        #expect(view.messages.last?.event.inserted?.map(\.id) == ["5"])
        #expect(Set(view.messages.map(\.event.epoch)).count == (history ? 1 : 2), "one lineage per epoch")
        if history {
            // The down-time edit (1 deleted, 2 updated, 4 inserted) is one change set, published once.
            let downTime = view.messages.filter { $0.event.deleted?.map(\.id) == ["1"] }
            #expect(downTime.count == 1, "\(kinds)")
            #expect(downTime.first?.event.inserted?.map(\.id) == ["4"])
        }
    }

    /// A nats-server and a booksd publishing to it, once its first snapshot marker is in the stream.
    static func publishingDaemon(rows: [String]) async throws -> (NATSServerProcess, FeedDaemon) {
        let server = try NATSServerProcess()
        let daemon = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"])
        try await waitForInitialSnapshot(server)
        return (server, daemon)
    }

    /// Waits until booksd published its first snapshot marker (the stream then has a start).
    static func waitForInitialSnapshot(_ server: NATSServerProcess) async throws {
        try await waitForInitialSnapshot(url: server.url)
    }

    /// The same, for the server(s) at `url`, waiting up to `timeout` seconds.
    static func waitForInitialSnapshot(url: String, timeout: Double = 15) async throws {
        let published = await eventually(timeout: timeout, interval: 0.05) {
            (try? await NATSStreamView.read(url: url).messages.isEmpty) == false
        }
        if !published { throw TestSupportError("booksd published nothing to \(url)") }
    }

    /// Waits until the daemon applied every pending write (a ping answers from the engine's position).
    private func eventuallySettled(_ daemon: FeedDaemon) async throws {
        let client = try await daemon.connect()
        _ = try await client.list()
    }
}
