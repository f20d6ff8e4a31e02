import BooksClient
import BooksCore
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// What a replica forwards to its owner (owner and replica booksd, real nats-server, real
/// booksctl): its writes carry who made them on the replica's host, a list at a point larger
/// than one NATS message comes in pages, and requests for the owner's history wait in a bounded
/// queue.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaForwardTests {
    typealias Parity = NATSCLIParityTests

    /// The `actor` of a `log`/`blame` JSON line.
    static func actor(_ line: String) -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["actor"] as? [String: Any] ?? [:]
    }

    static var hostName: String {
        var host = [UInt8](repeating: 0, count: 256)
        _ = host.withUnsafeMutableBytes { gethostname($0.baseAddress!.assumingMemoryBound(to: CChar.self), 255) }
        return String(decoding: host.prefix { $0 != 0 }, as: UTF8.self)
    }

    @Test func theOwnersHistoryNamesWhoOnTheReplicaMadeAClientWriteOrAHandEdit() async throws {
        let server = try NATSServerProcess()
        let seed = NATSReplicaTests.seed
        let owner = try await FeedDaemon(rows: seed, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: seed)
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)

        // A client write on the replica's socket: the owner records the replica's client.
        let added = try await Parity.booksctl(nats: nil, replica, ["add", "Walden", "Thoreau"])
        #expect(added.status == 0, "\(added)")
        let log = try await Parity.booksctl(nats: nil, owner, ["log", "-n", "1", "--json"])
        let client = Self.actor(log.lines.last ?? "")
        #expect(client["user"] as? String == user, "\(log)")
        #expect((client["uid"] as? NSNumber)?.uint32Value == UInt32(getuid()), "\(log)")
        #expect(client["program"] as? String == "booksctl", "\(log)")
        #expect(client["host"] as? String == Self.hostName, "\(log)")
        #expect(client["via"] as? String == "nats", "\(log)")
        let text = try await Parity.booksctl(nats: nil, owner, ["log", "-n", "1"])
        #expect(text.output.contains("\(user) booksctl["), "\(text)")

        // A hand edit of the replica's file: attributed as the owner attributes its own hand edits
        // (no editor evidence for sed: the file's owner, editor unknown), on the replica's host.
        try await ReplicaDaemon.sed("s/^2|Emma|Jane Austen$/2|Emma|J. Austen/", replica.file)
        let edited = await eventually(timeout: 60, interval: 0.1) {
            ReplicaDaemon.lines(of: owner).contains("2|Emma|J. Austen")
        }
        #expect(edited, "\(owner.log.suffix(2000))")
        let blame = try await Parity.booksctl(nats: nil, owner, ["blame", "2", "--json"])
        let editor = Self.actor(blame.lines.first ?? "")
        #expect(editor["user"] as? String == user, "\(blame)")
        #expect((editor["uid"] as? NSNumber)?.uint32Value == UInt32(getuid()), "\(blame)")
        #expect(editor["editor"] as? String == "unknown", "\(blame)")
        #expect(editor["host"] as? String == Self.hostName, "\(blame)")
        #expect(editor["via"] as? String == "nats", "\(blame)")
        // Asked on the replica (forwarded to the owner): the same answer.
        let onReplica = try await Parity.booksctl(nats: nil, replica, ["blame", "2", "--json"])
        #expect(onReplica.output == blame.output, "\(onReplica)")
        _ = server
    }

    @Test func aListAtAPointLargerThanMaxPayloadIsPagedToTheReplicasClient() async throws {
        let config = try TemporaryDirectory(prefix: "nats-config")
        let server = try NATSServerProcess(configFile: try config.write("nats.conf", "max_payload: 32768\n"))
        let rows = (1...2000).map { "b\($0)|Book number \($0)|Author \($0 % 97)" }
        let owner = try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: rows)
        let before = try #require(try await owner.connect().ping())
        try owner.handAppend("x1|Extra|Someone")
        await ReplicaDaemon.expectConverged([owner, replica], to: rows + ["x1|Extra|Someone"])
        let at = "\(before.seq)"
        let queries: [[String]] = [
            ["list", "--at", at, "--json"], ["list", "--at", at, "--limit", "1500", "--offset", "200", "--json"],
            ["list", "--at", at, "--sort", "name", "--json"],
        ]
        for query in queries {
            let onOwner = try await Parity.booksctl(nats: nil, owner, query)
            let onReplica = try await Parity.booksctl(nats: nil, replica, query)
            #expect(onOwner.status == 0 && onOwner.lines.count > 100, "\(query): \(onOwner.stderr)")
            #expect(onReplica.status == 0, "\(query): \(onReplica.stderr)")
            #expect(onReplica.output == onOwner.output, "\(query): the owner's books on the replica")
        }
    }

    @Test func requestsForTheOwnersHistoryWaitInABoundedQueue() async throws {
        let server = try NATSServerProcess()
        let owner = try await FeedDaemon(rows: NATSReplicaTests.seed, settings: ["nats_url=\(server.url)"])
        let replica = try await ReplicaDaemon.start(server)
        await ReplicaDaemon.expectConverged([owner, replica], to: NATSReplicaTests.seed)
        _ = try await replica.connect().history()  // answered while the owner answers
        owner.daemon?.signal(SIGSTOP)  // subscribed, never answering: every forwarded request times out
        defer { owner.daemon?.signal(SIGCONT) }
        let clients = 48
        let answers = Answers()
        var connected: [BooksClient] = []
        for index in 0..<clients { connected.append(try await replica.connect("history-\(index)")) }
        for client in connected {
            Task { [client, answers] in
                let answer: String
                do {
                    answer = "ok \(try await client.history(limit: 1).changes.count)"
                } catch {
                    answer = "\(error)"
                }
                await answers.add(answer)
            }
        }
        let busy = await eventually(timeout: 10, interval: 0.05) {
            await answers.all.filter { $0.contains("already wait") }.count >= clients - 32
        }
        let early = await answers.all
        #expect(busy, "beyond the bound at once: \(early)")
        let all = await eventually(timeout: 40, interval: 0.1) { await answers.all.count == clients }
        let answered = await answers.all
        #expect(all, "every request answered (none hangs): \(answered.count) of \(clients)")
        #expect(answered.allSatisfy { $0.contains("owner") }, "\(answered)")
        owner.daemon?.signal(SIGCONT)
        let served = await eventually(timeout: 30, interval: 0.2) {
            (try? await replica.connect().history(limit: 1)) != nil
        }
        #expect(served, "the owner answers again")
    }
}

/// What the clients of one test were answered, in the order the answers came.
private actor Answers {
    var all: [String] = []
    func add(_ answer: String) { all.append(answer) }
}
