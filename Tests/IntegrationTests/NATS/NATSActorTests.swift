import BooksNATS
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// Who made a write over NATS: `booksctl --nats` declares itself in its `Books-Actor` header and
/// booksd records that, marked `via` `nats`; a request without the header is `{"program":"nats"}`;
/// a malformed or oversized header is ignored (one log line) and the write still lands.
@Suite(.enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSActorTests {
    typealias Parity = NATSCLIParityTests

    @Test func booksctlOverNATSNamesItselfAndRequestsWithoutAGoodHeaderAreNATS() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["# books"])
        let pidFile = daemon.directory + "/writer.pid"
        let ctl = "\(shellQuote(BuildProducts.booksctl)) --nats \(shellQuote(server.url))"
        let add = try await ChildProcess.run(
            ["sh", "-c", "echo $$ > \(shellQuote(pidFile)); exec \(ctl) add Emma Austen"], timeout: 30)
        #expect(add.succeeded, "\(add)")
        let pid = try #require(Int((TestFiles.readText(pidFile) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))

        let raw = try NATSConnection.connect(NATSConnectOptions(urls: [server.url]))
        let oversized = #"{"user":""# + String(repeating: "x", count: 4 * ActorHeader.maxBytes) + #""}"#
        let requests: [(String, [(name: String, value: String)])] = [
            ("Plain", []), ("Malformed", [(ActorHeader.name, "{not json")]),
            ("Oversized", [(ActorHeader.name, oversized)]),
        ]
        for (name, headers) in requests {
            let line = Array(#"{"id":"r","op":"insert","books":[{"name":"\#(name)","author":"Raw"}]}"#.utf8)
            let reply = try raw.request(line, to: "books.default.api", headers: headers, timeoutMilliseconds: 15_000)
            #expect(String(decoding: reply.data, as: UTF8.self).contains(#""ok":true"#), "\(name): \(reply)")
        }

        let log = try await Parity.booksctl(nats: nil, daemon, ["log", "--json"])
        let actors = log.lines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["actor"] as? [String: Any]
        }
        #expect(actors.count == 4, "\(log)")
        guard actors.count == 4 else { return }
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let declared = try #require(actors[0], "\(log)")
        #expect(declared["user"] as? String == user, "\(declared)")
        #expect((declared["uid"] as? NSNumber)?.uint32Value == UInt32(getuid()), "\(declared)")
        #expect((declared["pid"] as? NSNumber)?.intValue == pid, "\(declared)")
        #expect(declared["program"] as? String == "booksctl", "\(declared)")
        var host = [UInt8](repeating: 0, count: 256)
        _ = host.withUnsafeMutableBytes { gethostname($0.baseAddress!.assumingMemoryBound(to: CChar.self), 255) }
        let hostName = String(decoding: host.prefix { $0 != 0 }, as: UTF8.self)
        #expect(declared["host"] as? String == hostName, "\(declared)")
        #expect(declared["via"] as? String == "nats", "\(declared)")
        for actor in actors.dropFirst() {
            #expect(actor?.count == 1 && actor?["program"] as? String == "nats", "\(log)")
        }
        let text = try await Parity.booksctl(nats: server.url, daemon, ["log", "-n", "4"])
        #expect(text.lines.first?.contains("\(user) booksctl[\(pid)]@") == true, "\(text)")
        #expect(text.lines.first?.contains(" via nats") == true, "\(text)")
        let ignored = daemon.log.components(separatedBy: "ignored a").count - 1
        #expect(ignored == 2, "one line for the malformed header, one for the oversized: \(daemon.log)")
    }

    @Test func theNATSUserBooksctlConnectedAsIsDeclaredToo() async throws {
        let server = try NATSServerProcess(extraArguments: ["--user", "ops", "--pass", "pw"])
        let daemon = try await FeedDaemon(
            rows: ["# books"], settings: ["nats_url=\(server.url)", "nats_user=ops", "nats_password=pw"])
        let add = [BuildProducts.booksctl, "--nats", server.url, "--nats-user", "ops", "--nats-password", "pw"]
        // Until booksd answers on the api subject (before that, "no booksd answers" and nothing written).
        let added = await eventually(timeout: 30, interval: 0.2) {
            (try? await ChildProcess.run(add + ["add", "Emma", "Austen"], timeout: 30))?.succeeded == true
        }
        #expect(added, "\(daemon.log.suffix(2000))")
        let log = try await Parity.booksctl(nats: nil, daemon, ["log", "--json"])
        let actor = Parity.members(log.lines.last ?? "")["actor"] ?? ""
        #expect(actor.contains(#""natsUser":"ops""#) && actor.contains(#""via":"nats""#), "\(log)")
        let text = try await Parity.booksctl(nats: nil, daemon, ["log", "-n", "1"])
        #expect(text.output.contains(" via nats as ops"), "\(text)")
    }
}
