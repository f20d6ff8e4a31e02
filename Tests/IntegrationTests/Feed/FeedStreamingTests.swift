import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Testing

/// Streamed lists and snapshots against a real booksd with a small page budget (many pages).
@Suite(.serialized) struct FeedStreamingTests {
    static func rows(_ count: Int) -> [String] {
        (0..<count).map { "id-\($0)|Title \\| \($0) é|Author \($0 % 10)" }
    }

    static func books(_ count: Int) -> [Book] {
        (0..<count).map { Book(id: "id-\($0)", name: "Title | \($0) é", author: "Author \($0 % 10)") }
    }

    @Test("booksctl list streams JSON lines, one JSON array, or tab-separated lines; the same books in order")
    func listFormats() async throws {
        let daemon = try await FeedDaemon(rows: Self.rows(3000), settings: ["page_budget_bytes=4K"])
        defer { daemon.stop() }
        let ctl = { (args: [String]) in
            try await FeedProcess.run(BuildProducts.booksctl, ["--socket", daemon.socket] + args)
        }
        let expected = Self.books(3000)

        let lines = try await ctl(["list", "--json"])
        #expect(lines.status == 0, "\(lines)")
        let decoded = try lines.out.split(separator: "\n").map {
            try JSONDecoder().decode(Book.self, from: Data($0.utf8))
        }
        #expect(decoded == expected)

        let array = try await ctl(["list", "--json-array", "--author", "author 3", "--offset", "5", "--limit", "7"])
        #expect(
            try JSONDecoder().decode([Book].self, from: Data(array.out.utf8))
                == Array(expected.filter { $0.author == "Author 3" }[5..<12]))
        let empty = try await ctl(["list", "--json-array", "--name", "nothing like this"])
        #expect(empty.out == "[]\n")

        let text = try await ctl(["list", "--sort", "-id", "--limit", "3"])
        #expect(
            text.out
                == "id-999\tTitle | 999 é\tAuthor 9\nid-998\tTitle | 998 é\tAuthor 8\nid-997\tTitle | 997 é\tAuthor 7\n"
        )
    }

    @Test("paged list and snapshot on the wire: lines with more:true, then the last; a plain feed has no snapshot")
    func pagesOnTheWire() async throws {
        let daemon = try await FeedDaemon(
            rows: Self.rows(2000), settings: ["page_budget_bytes=4K", "change_log_retention=1"])
        defer { daemon.stop() }
        let raw = try LineClient(path: daemon.socket)
        defer { raw.close() }
        let hello = try raw.helloReply()
        let epoch = (hello["result"] as? [String: Any])?["epoch"] as? String ?? ""

        // A paged list: several pages, `more` on all but the last, which carries `total`.
        #expect(raw.send(#"{"id":"l","op":"list","paged":true}"#))
        var pages: [[String: Any]] = []
        while let page = raw.readJSON(), page["id"] as? String == "l" {
            let result = page["result"] as? [String: Any] ?? [:]
            pages.append(result)
            if result["more"] == nil { break }
        }
        #expect(pages.count > 3)
        #expect(pages.dropLast().allSatisfy { $0["more"] as? Bool == true && $0["total"] == nil })
        #expect(pages.last?["total"] as? Int == 2000)
        #expect(
            pages.flatMap { ($0["books"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" } }
                == Self.books(2000).map(\.id))

        // A paged snapshot, then a change after it.
        #expect(raw.send(#"{"id":"s","op":"subscribe","paged":true}"#))
        #expect(raw.readJSON()?["id"] as? String == "s")
        var snapshotBooks = 0
        var snapshotLines = 0
        while let event = raw.readJSON(), event["event"] as? String == "snapshot" {
            snapshotLines += 1
            snapshotBooks += (event["books"] as? [Any])?.count ?? 0
            if event["more"] == nil { break }
        }
        #expect(snapshotLines > 3 && snapshotBooks == 2000)
        let writer = try await daemon.connect("writer")
        _ = try await writer.insert([BookDraft(id: "w1", name: "New", author: "Writer")])
        _ = try await writer.insert([BookDraft(id: "w2", name: "Newer", author: "Writer")])
        #expect(raw.readJSON()?["seq"] as? Int == 1)

        // A plain feed resuming from a trimmed history: resync-required and no snapshot, then changes.
        let plain = try LineClient(path: daemon.socket)
        defer { plain.close() }
        _ = try plain.helloReply()
        #expect(plain.send(#"{"id":"p","op":"subscribe","snapshot":false,"resume":{"epoch":"\#(epoch)","seq":0}}"#))
        #expect(plain.readJSON()?["id"] as? String == "p")
        let marker = plain.readJSON()
        #expect(marker?["event"] as? String == "resync-required" && marker?["reason"] as? String == "history-trimmed")
        _ = try await writer.delete(["w1"])
        let next = plain.readJSON()
        #expect(next?["event"] as? String == "change" && next?["seq"] as? Int == 3, "\(String(describing: next))")
    }

    @Test("clients that do not read a list or a snapshot do not grow the daemon beyond the page budget")
    func backPressure() async throws {
        let count = 200_000  // about 12 MB of JSON per reply
        let daemon = try await FeedDaemon(rows: Self.rows(count))
        defer { daemon.stop() }
        guard let process = daemon.daemon else { return }
        let before = process.memory.rss
        var clients: [LineClient] = []
        for k in 0..<8 {
            let client = try LineClient(path: daemon.socket, receiveBufferSize: 4096)
            _ = try client.helloReply()
            #expect(client.send(k % 2 == 0 ? #"{"id":"l","op":"list"}"# : #"{"id":"s","op":"subscribe"}"#))
            clients.append(client)
        }
        try await Task.sleep(for: .milliseconds(800))
        let stalled = process.memory.rss
        // 8 unread replies of ~12 MB each: materialised, that would be about 100 MB more.
        #expect(stalled - before < 24 * 1024, "VmRSS before \(before) KiB, with 8 stalled readers \(stalled) KiB")
        // Each client still gets its whole reply when it reads.
        let first = clients[0].readLine(timeout: 30) ?? ""
        #expect(first.hasPrefix(#"{"id":"l","ok":true"#) && first.contains(#""total":200000"#))
        #expect(first.components(separatedBy: #""author":"#).count - 1 == count)
        for client in clients { client.close() }
        print("[stream] back-pressure: booksd VmRSS \(before) KiB idle, \(stalled) KiB with 8 stalled 12 MB replies")
    }
}
