import BooksTestSupport
import Foundation
import Testing

/// `booksctl --nats URL …` against `booksctl --socket PATH …` on the same daemon: every option
/// means the same on both transports (real booksd, real nats-server).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSCLIParityTests {
    /// Four edits of every kind, seqs 1…4.
    static func editedDaemon(rows: [String] = ["# books"]) async throws -> (NATSServerProcess, FeedDaemon) {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: rows)
        try daemon.handAppend("1|Dune|Herbert")
        let added = try await ChildProcess.run([
            BuildProducts.booksctl, "--socket", daemon.socket, "add", "Emma", "Austen",
        ])
        #expect(added.succeeded, "\(added)")
        try await waitForSeq(2, daemon, server)
        try daemon.handWrite(try daemon.readFile().replacing("Dune|Herbert", with: "Dune|Frank Herbert"))
        try await waitForSeq(3, daemon, server)
        try daemon.handWrite(try daemon.readFile().replacing("1|Dune|Frank Herbert\n", with: ""))
        try await waitForSeq(4, daemon, server)
        return (server, daemon)
    }

    /// Waits until the daemon is at `seq` and the stream has it.
    static func waitForSeq(_ seq: UInt64, _ daemon: FeedDaemon, _ server: NATSServerProcess) async throws {
        let client = try await daemon.connect()
        let reached = await eventually(timeout: 20, interval: 0.05) {
            guard let point = try? await client.ping(), point.seq >= seq else { return false }
            let view = try? await NATSStreamView.read(url: server.url)
            return view?.messages.last?.event.seq ?? 0 >= seq
        }
        if !reached { throw TestSupportError("the daemon or the stream did not reach seq \(seq)") }
    }

    /// `booksctl ARGS…` with `--socket` (socket) or `--nats` (NATS): stdout lines, stderr, status.
    static func booksctl(
        nats url: String?, _ daemon: FeedDaemon, _ arguments: [String], timeout: Double = 30
    ) async throws -> (lines: [String], stderr: String, status: Int32, output: String) {
        let transport = url.map { ["--nats", $0] } ?? ["--socket", daemon.socket]
        let errPath = daemon.directory + "/booksctl-\(UInt64.random(in: 0...UInt64.max)).err"
        let result = try await ChildProcess.run(
            [BuildProducts.booksctl] + transport + arguments, stderr: .appendFile(errPath), timeout: timeout)
        let lines = result.output.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        return (lines, TestFiles.readText(errPath) ?? "", result.status, result.output)
    }

    /// A JSON line as a dictionary of its members (values as JSON text).
    static func members(_ line: String) -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return [:]
        }
        // Nested objects (`actor`) as JSON with sorted keys: a dictionary's description has
        // no fixed order.
        return object.mapValues { value in
            guard JSONSerialization.isValidJSONObject(value),
                let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            else { return "\(value)" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test func jsonLinesOverNATSAreTheSocketsLinesWithTheirStore() async throws {
        let (server, daemon) = try await Self.editedDaemon()
        let arguments = ["subscribe", "--json", "--since", "0", "--count", "4"]
        let socket = try await Self.booksctl(nats: nil, daemon, arguments)
        let nats = try await Self.booksctl(nats: server.url, daemon, arguments)
        #expect(socket.status == 0 && nats.status == 0, "socket: \(socket), nats: \(nats)")
        #expect(socket.lines.count == 4, "\(socket.lines)")
        #expect(nats.lines == socket.lines, "identical lines on both transports")
        #expect(nats.lines.allSatisfy { Self.members($0)["store"] == "default" }, "\(nats.lines)")
        #expect(nats.lines.map { Self.members($0)["seq"] ?? "" } == ["1", "2", "3", "4"])
        #expect(nats.stderr.isEmpty, "--since 0 over NATS is no gap: \(nats.stderr)")
    }

    @Test func sinceIsExclusiveAndCountsBooksdSeqsOnBothTransports() async throws {
        let (server, daemon) = try await Self.editedDaemon()
        let epoch = try #require(try await daemon.connect().ping()).epoch
        for since in ["2", "\(epoch):2"] {
            let arguments = ["subscribe", "--json", "--since", since, "--count", "2"]
            let socket = try await Self.booksctl(nats: nil, daemon, arguments)
            let nats = try await Self.booksctl(nats: server.url, daemon, arguments)
            #expect(socket.lines.map { Self.members($0)["seq"] ?? "" } == ["3", "4"], "socket --since \(since)")
            #expect(nats.lines.map { Self.members($0)["seq"] ?? "" } == ["3", "4"], "nats --since \(since): \(nats)")
            #expect(nats.lines == socket.lines)
        }
        // A cursor of another epoch: both report the gap the same way (a resync line, which
        // --count does not count), then follow from now.
        let arguments = ["subscribe", "--json", "--since", "00000000-0000-4000-8000-000000000000:2", "--count", "1"]
        let socket = try await Self.booksctl(nats: nil, daemon, arguments, timeout: 3)
        let nats = try await Self.booksctl(nats: server.url, daemon, arguments, timeout: 3)
        let resync = { (lines: [String]) in lines.filter { $0.hasPrefix("{") }.map { Self.members($0) } }
        #expect(resync(socket.lines).count == 1 && resync(nats.lines).count == 1, "socket: \(socket), nats: \(nats)")
        #expect(resync(nats.lines).first?["kind"] == "resync")
        #expect(
            resync(nats.lines).map { $0.filter { $0.key != "time" } }
                == resync(socket.lines).map { $0.filter { $0.key != "time" } })
        #expect(nats.stderr == socket.stderr, "the same notice")
    }

    /// The lines of a subscriber's output file.
    static func lines(_ path: String) -> [String] {
        (TestFiles.readText(path) ?? "").split(separator: "\n").map(String.init)
    }

    /// Appends warm-up rows until every output printed the latest one: each subscriber is then
    /// seeded and live. Returns how many lines each had printed.
    static func warmUp(_ daemon: FeedDaemon, _ outputs: [String]) async throws -> [Int] {
        for n in 1...60 {
            try daemon.handAppend("warm-\(n)|Warm|Up")
            let all = await eventually(timeout: 1, interval: 0.05) {
                outputs.allSatisfy { lines($0).contains { members($0)["id"] == "warm-\(n)" } }
            }
            if all { return outputs.map { lines($0).count } }
        }
        throw TestSupportError("the subscribers never printed a warm-up row")
    }

    @Test func initialAndMirrorOverNATSPrintWhatTheSocketPrints() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["1|Dune|Herbert", "2|Emma|Austen"])
        for option in ["--initial", "--mirror"] {
            let out = (socket: daemon.directory + "/s\(option).out", nats: daemon.directory + "/n\(option).out")
            let socket = try ChildProcess.spawn(
                [BuildProducts.booksctl, "--socket", daemon.socket, "subscribe", option, "--json"],
                stdout: .appendFile(out.socket))
            let nats = try ChildProcess.spawn(
                [BuildProducts.booksctl, "--nats", server.url, "subscribe", option, "--json"],
                stdout: .appendFile(out.nats))
            defer {
                _ = socket.kill()
                _ = nats.kill()
            }
            var skip = [0, 0]
            if option == "--initial" {
                let started = await eventually(timeout: 20, interval: 0.05) {
                    [out.socket, out.nats].allSatisfy { Self.lines($0).count >= 2 }
                }
                #expect(started, "both print the initial books")
            } else {
                skip = try await Self.warmUp(daemon, [out.socket, out.nats])  // --mirror prints nothing at start
            }
            try daemon.handAppend("3\(option)|Walden|Thoreau")
            let printed = await eventually(timeout: 20, interval: 0.05) {
                [out.socket, out.nats].allSatisfy { Self.lines($0).contains { $0.contains("3\(option)") } }
            }
            #expect(printed, "both print the change")
            let socketLines = Array(Self.lines(out.socket).dropFirst(skip[0]))
            let natsLines = Array(Self.lines(out.nats).dropFirst(skip[1]))
            #expect(natsLines.count == (option == "--initial" ? 3 : 1), "\(option): \(natsLines)")
            let without = { (lines: [String]) in lines.map { Self.members($0).filter { $0.key != "time" } } }
            #expect(without(natsLines) == without(socketLines), "\(option)")
        }
    }

    @Test func mirrorOverNATSPrintsTheSocketsDifferenceAcrossANewEpoch() async throws {
        let server = try NATSServerProcess()
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Herbert", "2|Emma|Austen"], settings: ["nats_url=\(server.url)", "state_directory=none"])
        try await NATSFeedTests.waitForInitialSnapshot(url: server.url)
        let out = (socket: daemon.directory + "/mirror-socket.out", nats: daemon.directory + "/mirror-nats.out")
        let socket = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--socket", daemon.socket, "subscribe", "--mirror", "--json"],
            stdout: .appendFile(out.socket))
        let nats = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--nats", server.url, "subscribe", "--mirror", "--json"],
            stdout: .appendFile(out.nats))
        defer {
            _ = socket.kill()
            _ = nats.kill()
        }
        let skip = try await Self.warmUp(daemon, [out.socket, out.nats])
        daemon.stop()
        try daemon.handWriteInPlace("2|Emma|Jane Austen\n3|Walden|Thoreau\n")
        try await daemon.start()  // no history: a new epoch, the bucket reconciled, a snapshot marker
        let tail = { (path: String, skip: Int) in Array(Self.lines(path).dropFirst(skip)) }
        let printed = await eventually(timeout: 30, interval: 0.1) {
            [tail(out.socket, skip[0]), tail(out.nats, skip[1])].allSatisfy { lines in
                lines.contains { $0.contains("\"id\":\"3\"") } && lines.contains { $0.contains("Jane Austen") }
            }
        }
        #expect(printed, "socket: \(tail(out.socket, skip[0])), nats: \(tail(out.nats, skip[1]))")
        let without = { (lines: [String]) in lines.map { Self.members($0).filter { $0.key != "time" } } }
        #expect(without(tail(out.nats, skip[1])) == without(tail(out.socket, skip[0])), "the same difference on both")
        #expect(tail(out.nats, skip[1]).allSatisfy { Self.members($0)["source"] == "resync" })
    }

    @Test func aListOf100kBooksOverNATSIsReadInPages() async throws {
        let rows = (0..<100_000).map { "id-\($0)|Title number \($0) of the big list|Author \($0 % 977)" }
        let server = try NATSServerProcess()
        // A debug build on a loaded machine may need more than the default 500 ms to sort 100k books.
        let daemon = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)", "query_budget_ms=20000"])
        try await NATSFeedTests.waitForInitialSnapshot(url: server.url, timeout: 60)
        let queries = [
            ["list", "--json"], ["list", "--json", "--sort", "-name", "--offset", "10", "--limit", "20000"],
        ]
        for (query, count) in zip(queries, [100_000, 20_000]) {
            let started = MonotonicClock.seconds()
            let nats = try await Self.booksctl(nats: server.url, daemon, query, timeout: 60)
            let seconds = MonotonicClock.seconds() - started
            let socket = try await Self.booksctl(nats: nil, daemon, query, timeout: 60)
            #expect(nats.status == 0, "\(query): \(nats.stderr)")
            #expect(nats.output.utf8.count { $0 == UInt8(ascii: "\n") } == count, "\(query)")
            #expect(nats.output == socket.output, "\(query): the same books in the same order")
            print("\(query.joined(separator: " ")) of 100k books over NATS: \(seconds) s")
        }
    }

    @Test func usageErrorsExit2AndAConnectionErrorIsPrintedOnce() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["1|Dune|Herbert"])
        let usage: [[String]] = [
            ["subscribe", "--since", "bogus"],
            ["subscribe", "--mirror", "--since", "0"],
            ["--store", "nope", "list"],
            ["--store", "nope", "subscribe"],
            ["--store", "nope", "get", "1"],
        ]
        for arguments in usage {
            let nats = try await Self.booksctl(nats: server.url, daemon, arguments, timeout: 10)
            let socket = try await Self.booksctl(nats: nil, daemon, arguments, timeout: 10)
            #expect(socket.status == 2, "socket \(arguments): \(socket)")
            #expect(nats.status == 2, "nats \(arguments): \(nats)")
        }
        let unknown = try await Self.booksctl(nats: server.url, daemon, ["--store", "nope", "list"], timeout: 10)
        #expect(unknown.stderr.contains("nope") && unknown.stderr.contains("stores: default"), "\(unknown.stderr)")

        let unreachable = try await Self.booksctl(nats: "nats://127.0.0.1:1", daemon, ["list"], timeout: 20)
        #expect(unreachable.status == 3)
        let lines = unreachable.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(unreachable.stderr)")
        let explanation = "No server available for connection"
        #expect(
            unreachable.stderr.components(separatedBy: explanation).count == 2,
            "the library's explanation once: \(unreachable.stderr)")
    }
}
