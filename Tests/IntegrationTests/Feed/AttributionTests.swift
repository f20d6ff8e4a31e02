import BooksClient
import BooksNATS
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// Who made each change set, on `subscribe --json` lines: a booksctl write names the client's
/// user, pid and program (from the kernel), a sed edit the file's owner; the same after a
/// restart, from the durable history.
@Suite("Attribution of change sets")
struct AttributionTests {
    @Test("a client write and a sed edit: source and actor on subscribe --json lines, also after a restart")
    func clientWriteAndSedEdit() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Herbert", "b2|Emma|Austen"])
        let ctl = "\(shellQuote(BuildProducts.booksctl)) --socket \(shellQuote(daemon.socket))"
        let pidFile = daemon.directory + "/writer.pid"
        let write = try await ChildProcess.run(
            ["sh", "-c", "echo $$ > \(shellQuote(pidFile)); exec \(ctl) update b1 --name 'Dune Messiah'"], timeout: 30)
        #expect(write.succeeded, "\(write)")
        let pid = try #require(
            Int(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let sed = try await ChildProcess.run(["sed", "-i", "s/Emma/Persuasion/", daemon.file], timeout: 30)
        #expect(sed.succeeded, "\(sed)")
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let owner = UInt32(getuid())

        func lines() async throws -> [[String: Any]] {
            // --since 0: from seq 0 of the daemon's current epoch (resolved with a ping).
            let result = try await ChildProcess.run(
                ["sh", "-c", "\(ctl) subscribe --json --since 0 --count 2"], timeout: 30)
            #expect(result.succeeded, "\(result)")
            return result.output.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        func check(_ lines: [[String: Any]]) {
            #expect(lines.count == 2, "\(lines)")
            guard lines.count == 2 else { return }
            #expect(lines[0]["source"] as? String == "client")
            let client = lines[0]["actor"] as? [String: Any]
            #expect(client?["user"] as? String == user, "\(lines[0])")
            #expect((client?["uid"] as? NSNumber)?.uint32Value == owner, "\(lines[0])")
            #expect((client?["pid"] as? NSNumber)?.intValue == pid, "\(lines[0])")
            #expect(client?["program"] as? String == "booksctl", "\(lines[0])")
            #expect(lines[1]["source"] as? String == "file")
            let file = lines[1]["actor"] as? [String: Any]
            #expect(file?["user"] as? String == user, "\(lines[1])")
            #expect(file?["editor"] as? String == "unknown", "\(lines[1])")
        }
        check(try await lines())
        #expect(daemon.stop() == 0)
        try await daemon.start()
        check(try await lines())
    }

    @Test(
        "a NATS write of the Swift client: source nats and the actor it declared, via nats, on the socket feed",
        .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
    func natsWrite() async throws {
        let (server, daemon) = try await NATSFeedTests.publishingDaemon(rows: ["b1|Dune|Herbert"])
        let remote = try NATSBooksClient(options: NATSConnectOptions(urls: [server.url]))
        defer { remote.close() }
        _ = try await remote.update([BookPatch(id: "b1", name: "Dune Messiah")])
        let ctl = "\(shellQuote(BuildProducts.booksctl)) --socket \(shellQuote(daemon.socket))"
        let result = try await ChildProcess.run(
            ["sh", "-c", "\(ctl) subscribe --json --since 0 --count 1"], timeout: 30)
        #expect(result.succeeded, "\(result)")
        let line = result.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.first
        #expect(line?["source"] as? String == "nats", "\(result)")
        let actor = line?["actor"] as? [String: Any]
        #expect(actor?["via"] as? String == "nats", "\(result)")
        #expect((actor?["pid"] as? NSNumber)?.int32Value == getpid(), "\(result)")
        #expect(actor?["program"] as? String == remote.declaredActor.program, "\(result)")
    }
}
