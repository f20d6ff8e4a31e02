import BooksTestSupport
import Foundation
import Testing

/// The history over NATS (`booksctl --nats URL log/show/blame/list --at/undo/stores`, `subscribe
/// --since WHEN`, `log --follow`) against the same commands over the socket, on one daemon: the same
/// answers, statuses and meanings (real booksd, real nats-server).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSHistoryParityTests {
    typealias Parity = NATSCLIParityTests

    @Test func logShowBlameAndListAtOverNATSAnswerAsTheSocket() async throws {
        // Seqs 1…4: a hand insert of book 1, a client insert, a hand update and a hand delete of book 1.
        let (server, daemon) = try await Parity.editedDaemon()
        let queries: [[String]] = [
            ["log"], ["log", "--json"], ["log", "-p"], ["log", "-n", "2", "--json"],
            ["log", "--since", "-10m", "--json"],
            ["log", "--since", "2", "--json"], ["log", "--until", "-1h", "--json"], ["log", "--id", "1", "--json"],
            ["log", "--author", "Austen"], ["show", "3", "--json"], ["show", "3"], ["blame", "1", "--json"],
            ["blame"], ["list", "--at", "2", "--json"], ["list", "--at", "3"], ["list", "--at", "-1m", "--json"],
            ["show", "999"], ["log", "--since", "last tuesday"], ["list", "--at", "bogus"], ["stores", "--json"],
            ["stores"],
        ]
        for query in queries {
            let socket = try await Parity.booksctl(nats: nil, daemon, query)
            let nats = try await Parity.booksctl(nats: server.url, daemon, query)
            #expect(nats.status == socket.status, "\(query): socket \(socket), nats \(nats)")
            #expect(nats.output == socket.output, "\(query): the same lines")
            #expect(nats.stderr == socket.stderr, "\(query): the same errors")
        }
        let log = try await Parity.booksctl(nats: server.url, daemon, ["log", "--json"])
        #expect(log.lines.map { Parity.members($0)["seq"] ?? "" } == ["1", "2", "3", "4"], "\(log)")
        #expect(log.lines.map { Parity.members($0)["source"] ?? "" } == ["file", "client", "file", "file"])
        // stores over NATS: each published store asked over its api subject, the oldest kept shown.
        let stores = try await Parity.booksctl(nats: server.url, daemon, ["stores", "--json"])
        let row = Parity.members(stores.lines.first ?? "")
        #expect(
            stores.lines.count == 1 && row["name"] == "default" && row["historyOldestSeq"] == "1"
                && row["historyOldestTime"]?.hasSuffix("Z") == true, "\(stores)")
        let missing = try await Parity.booksctl(nats: server.url, daemon, ["show", "999"])
        #expect(missing.status == 5 && missing.stderr.contains("no change set 999"), "\(missing)")
        let empty = try await Parity.booksctl(nats: server.url, daemon, ["log", "--until", "-1h", "--json"])
        #expect(empty.status == 0 && empty.lines.isEmpty, "--until in the past: nothing, \(empty)")
        // At 2, Dune (deleted since) was there; a book deleted since comes after today's books.
        let past = try await Parity.booksctl(nats: server.url, daemon, ["list", "--at", "2", "--json"])
        #expect(past.lines.compactMap { Parity.members($0)["name"] } == ["Emma", "Dune"], "\(past)")
        let bad = try await Parity.booksctl(nats: server.url, daemon, ["log", "--since", "last tuesday"])
        #expect(bad.status == 2 && bad.stderr.contains("hint: WHEN is"), "\(bad)")
    }

    @Test func undoOverNATSIsAnUndoChangeSetAndARefusalIsTheSocketsRefusal() async throws {
        let (server, daemon) = try await Parity.editedDaemon()
        // Undo the delete (4) over NATS: book 1 is back, as change set 5 with source undo.
        let undone = try await Parity.booksctl(nats: server.url, daemon, ["undo", "4"])
        #expect(undone.status == 0 && undone.output.contains("the store is at seq 5"), "\(undone)")
        #expect(try daemon.fileBooks().contains { $0.id == "1" && $0.author == "Frank Herbert" })
        let last = try await Parity.booksctl(nats: nil, daemon, ["log", "-n", "1", "--json"])
        let members = Parity.members(last.lines.first ?? "")
        #expect(members["seq"] == "5" && members["source"] == "undo", "\(last)")
        #expect(members["actor"]?.contains("\"program\":\"booksctl\"") == true, "\(members)")
        #expect(members["actor"]?.contains("\"via\":\"nats\"") == true, "\(members)")
        // Undoing the update (3) of a book changed since (by 4 and 5) is refused on both alike.
        let socket = try await Parity.booksctl(nats: nil, daemon, ["undo", "3"])
        let nats = try await Parity.booksctl(nats: server.url, daemon, ["undo", "3"])
        #expect(socket.status == 6 && nats.status == 6, "socket \(socket), nats \(nats)")
        #expect(nats.stderr == socket.stderr && nats.stderr.contains("changed again since"), "\(nats.stderr)")
        // An undo of what is not kept: not found on both.
        let gone = try await Parity.booksctl(nats: server.url, daemon, ["undo", "999"])
        #expect(gone.status == 5, "\(gone)")
        #expect(try await Parity.booksctl(nats: nil, daemon, ["undo", "999"]).stderr == gone.stderr)
    }

    @Test func subscribeSinceEveryWhenFormMeansTheSameOnBothTransports() async throws {
        let (server, daemon) = try await Parity.editedDaemon()
        let epoch = try #require(try await daemon.connect().ping()).epoch
        let shown = try await Parity.booksctl(nats: nil, daemon, ["show", "3", "--json"])
        let third = try #require(Parity.members(shown.lines.first ?? "")["time"])
        // (WHEN, the seqs printed): relative and named times, ISO 8601, a cursor, a plain seq.
        let forms: [(String, [String])] = [
            ("-10m", ["1", "2", "3", "4"]), ("today", ["1", "2", "3", "4"]), (third, ["3", "4"]),
            ("\(epoch):2", ["3", "4"]), ("2", ["3", "4"]), ("0", ["1", "2", "3", "4"]),
        ]
        for (when, seqs) in forms {
            let arguments = ["subscribe", "--json", "--since", when, "--count", String(seqs.count)]
            let socket = try await Parity.booksctl(nats: nil, daemon, arguments)
            let nats = try await Parity.booksctl(nats: server.url, daemon, arguments)
            #expect(socket.lines.map { Parity.members($0)["seq"] ?? "" } == seqs, "socket --since \(when): \(socket)")
            #expect(nats.lines.map { Parity.members($0)["seq"] ?? "" } == seqs, "nats --since \(when): \(nats)")
            #expect(nats.lines == socket.lines, "--since \(when)")
        }
    }

    @Test func logFollowOverNATSPrintsTheSocketsLogLines() async throws {
        let (server, daemon) = try await Parity.editedDaemon()
        for format in [["--json"], ["-p"]] {
            let out = (socket: daemon.directory + "/s\(format).out", nats: daemon.directory + "/n\(format).out")
            let socket = try ChildProcess.spawn(
                [BuildProducts.booksctl, "--socket", daemon.socket, "log", "-f", "-n", "1"] + format,
                stdout: .appendFile(out.socket))
            let nats = try ChildProcess.spawn(
                [BuildProducts.booksctl, "--nats", server.url, "log", "-f", "-n", "1"] + format,
                stdout: .appendFile(out.nats))
            defer {
                _ = socket.kill()
                _ = nats.kill()
            }
            let first = await eventually(timeout: 20, interval: 0.05) {
                [out.socket, out.nats].allSatisfy { !Parity.lines($0).isEmpty }
            }
            #expect(first, "both print the newest change set")
            let added = try await Parity.booksctl(nats: nil, daemon, ["add", "Walden \(format)", "Thoreau"])
            #expect(added.status == 0)
            let followed = await eventually(timeout: 20, interval: 0.05) {
                [out.socket, out.nats].allSatisfy { Parity.lines($0).contains { $0.contains("Walden") } }
            }
            #expect(followed, "both follow: \(Parity.lines(out.socket)) / \(Parity.lines(out.nats))")
            #expect(Parity.lines(out.nats) == Parity.lines(out.socket), "\(format): the same lines")
            let lines = Parity.lines(out.nats)
            if format == ["--json"] {
                let followedLine = Parity.members(lines.last ?? "")
                #expect(followedLine["changes"]?.contains("Walden") == true, "log --json objects: \(lines)")
                #expect(followedLine["source"] == "client" && followedLine["kind"] == nil)
            } else {
                #expect(lines.contains { $0.contains("  client  ") && $0.contains("+1") }, "log lines: \(lines)")
                #expect(lines.contains { $0.hasPrefix("    + ") && $0.contains("Walden") }, "-p: \(lines)")
            }
        }
    }
}
