import BooksClient
import BooksCore
import BooksTestSupport
import Foundation
import Testing

@testable import booksctl

@Suite struct CursorAndExecTests {
    @Test func cursorText() {
        #expect(Cursor(parsing: "5A09FBA9-438A:17") == Cursor(epoch: "5A09FBA9-438A", seq: 17))
        #expect(Cursor(parsing: "E:0\n") == Cursor(epoch: "E", seq: 0))
        for bad in ["", "E", ":3", "E:", "E:x", "E:-1", "a b:3", "E:3:4"] {
            #expect(Cursor(parsing: bad) == nil, "\(bad)")
        }
        #expect(Cursor(epoch: "E", seq: 9).text == "E:9")
    }

    @Test func cursorFileRoundTripAndRefusesGarbage() throws {
        let dir = try TemporaryDirectory(prefix: "cursor")
        defer { dir.remove() }
        let file = CursorFile(path: dir.file("c"))
        #expect(try file.load() == nil)
        try file.save(Cursor(epoch: "E", seq: 3))
        try file.save(Cursor(epoch: "E", seq: 4))
        #expect(try file.load() == Cursor(epoch: "E", seq: 4))
        #expect(dir.readText("c") == "E:4\n")
        #expect(dir.names() == ["c"], "no temporary file is left behind")
        _ = try dir.write("c", "not a cursor\n")
        #expect(throws: SubscribeFailure.self) { try file.load() }
        #expect(throws: SubscribeFailure.self) {
            try CursorFile(path: dir.file("missing/c")).save(Cursor(epoch: "E", seq: 1))
        }
    }

    @Test func cursorFileSaveDoesNotFollowAPlantedTemporarySymlink() throws {
        let dir = try TemporaryDirectory(prefix: "cursor")
        defer { dir.remove() }
        let victim = try dir.write("victim", "someone else's data\n")
        #expect(symlink(victim, dir.file("c.tmp")) == 0)
        let file = CursorFile(path: dir.file("c"))
        try file.save(Cursor(epoch: "E", seq: 7))
        #expect(dir.readText("victim") == "someone else's data\n", "the planted link's target is untouched")
        #expect(try file.load() == Cursor(epoch: "E", seq: 7))
        var info = stat()
        #expect(lstat(dir.file("c"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "the cursor is a plain file")
        #expect(Set(dir.names()) == ["c", "c.tmp", "victim"], "the decoy stays, no temporary is left behind")
    }

    static let formatter = ChangeLineFormatter(json: true, style: Style(enabled: false))

    static func update(_ seq: UInt64, inserted: [Book] = [], deleted: [Book] = []) -> MirrorUpdate {
        MirrorUpdate(
            epoch: "E", seq: seq, source: .client, time: ISO8601.parse("2026-12-01T10:00:0\(seq).000Z"), origin: .live,
            changes: ChangeSet(inserted: inserted, deleted: deleted))
    }

    @Test func jsonLinesCarryTheCursor() {
        let line = Self.formatter.lines(for: Self.update(3, inserted: [Book(id: "a", name: "n", author: "x")]))
        #expect(
            line == [
                #"{"seq":3,"kind":"insert","id":"a","name":"n","author":"x","source":"client","epoch":"E","#
                    + #""time":"2026-12-01T10:00:03.000Z"}"#
            ])
    }

    @Test func payloadOfOneChange() {
        let book = Book(id: "a", name: "Dune", author: "Herbert")
        let payload = ChangeSetPayload(Self.update(2, inserted: [book]), formatter: Self.formatter)
        let env = Dictionary(uniqueKeysWithValues: payload.environment)
        #expect(env["BOOKS_SEQ"] == "2")
        #expect(env["BOOKS_CURSOR"] == "E:2")
        #expect(env["BOOKS_KIND"] == "insert")
        #expect(env["BOOKS_NAME"] == "Dune")
        #expect(env["BOOKS_INSERTED"] == "1")
        #expect(env["BOOKS_IDS"] == "a")
        #expect(payload.json.hasPrefix(#"{"epoch":"E","time":"2026-12-01T10:00:02.000Z","seq":2,"firstSeq":2,"#))
        #expect(payload.json.hasSuffix("]}\n"))
        #expect(payload.json.contains(Self.formatter.lines(for: Self.update(2, inserted: [book]))[0]))
    }

    @Test func queueRunsInOrderOrMergesABurst() {
        let a = Book(id: "a", name: "A", author: "x")
        let b = Book(id: "b", name: "B", author: "x")
        let first = ChangeSetPayload(Self.update(1, inserted: [a]), formatter: Self.formatter)
        let second = ChangeSetPayload(Self.update(2, inserted: [b], deleted: [a]), formatter: Self.formatter)
        var plain = ExecQueue(coalesce: false)
        plain.enqueue(first)
        plain.enqueue(second)
        #expect(plain.next() == first)
        #expect(plain.next() == second)
        #expect(plain.next() == nil)
        var merging = ExecQueue(coalesce: true)
        merging.enqueue(first)
        merging.enqueue(second)
        let merged = merging.next()
        #expect(merging.next() == nil)
        #expect(merged?.sets == 2)
        #expect(merged?.firstSeq == 1)
        #expect(merged?.cursor.seq == 2)
        #expect(merged?.lines == first.lines + second.lines)
        #expect(merged?.ids == ["a", "b"])
        let env = Dictionary(uniqueKeysWithValues: merged?.environment ?? [])
        #expect(env["BOOKS_KIND"] == nil, "several books: no single-book variables")
        #expect(env["BOOKS_CHANGES"] == "3")
        #expect(env["BOOKS_FIRST_SEQ"] == "1")
    }

    @Test func gapMarkerIsAChangeSetOfZero() {
        let gap = MirrorUpdate(
            epoch: "F", seq: 9, source: nil, time: Date(), origin: .resyncRequired, changes: ChangeSet(),
            reason: "different-epoch")
        let payload = ChangeSetPayload(gap, formatter: Self.formatter)
        #expect(payload.sets == 0)
        #expect(payload.resync)
        #expect(payload.lines.count == 1)
    }

    @Test func reconnectHintOncePerOutage() {
        var notices = ReconnectNotices(mirror: false)
        #expect(notices.notice(for: .subscribed(resumed: true)) == nil, "a resumed first connection is quiet")
        let first = notices.notice(for: .disconnected(reason: "connection refused", retryIn: .milliseconds(100)))
        #expect(first?.contains("reconnecting") == true)
        for delay in [200, 400, 800, 1600, 2000] {
            #expect(
                notices.notice(for: .disconnected(reason: "connection refused", retryIn: .milliseconds(delay))) == nil)
        }
        #expect(notices.notice(for: .subscribed(resumed: true)) == "reconnected, resuming")
        #expect(notices.notice(for: .disconnected(reason: "daemon shut down", retryIn: .milliseconds(100))) != nil)
    }
}

@Suite struct JSONFastPathTests {
    @Test func perUpdatePartsWriteExactlyTheSlowPathsLine() {
        let nasty = Book(id: "x\"1", name: "Tab\there\nnew \\ back \u{1} ☃", author: "Zoë \u{2028} 漢字")
        let old = Book(id: "x\"1", name: "Old \"name\"", author: "")
        let actors = [
            nil, ChangeActor(uid: 1000, user: "zoë \"z\"", pid: 42, program: "booksctl"),
            ChangeActor(user: "carol", pid: 7, program: "booksctl", host: "web1", via: "nats", natsUser: "ops"),
        ]
        for time in [nil, "2026-12-01T10:00:00.000Z"] {
            for actor in actors {
                let update = MirrorUpdate(
                    epoch: "E\"1", seq: 12, source: .file, time: time.flatMap(ISO8601.parse), origin: .live,
                    changes: ChangeSet(inserted: [nasty], updated: [BookUpdate(old: old, new: nasty)], deleted: [old]),
                    actor: actor)
                let cursor = Cursor(epoch: "E\"1", seq: 12, time: time)
                let fast = ChangeLineFormatter(json: true, style: Style(enabled: false)).lines(for: update)
                let slow = [
                    ChangeLineFormatter.jsonLine(
                        seq: 12, kind: "insert", book: nasty, old: nil, source: "file", cursor: cursor, actor: actor),
                    ChangeLineFormatter.jsonLine(
                        seq: 12, kind: "update", book: nasty, old: old, source: "file", cursor: cursor, actor: actor),
                    ChangeLineFormatter.jsonLine(
                        seq: 12, kind: "delete", book: old, old: nil, source: "file", cursor: cursor, actor: actor),
                ]
                #expect(fast == slow)
            }
        }
    }

    @Test func theActorObjectOfJSONLinesReadsBackWhole() throws {
        let actor = ChangeActor(
            uid: 1000, user: "carol", pid: 7, program: "booksctl", host: "web1", editor: "vim", via: "nats",
            natsUser: "ops")
        let text = JSONLine.actor(actor)
        #expect(try JSONDecoder().decode(ChangeActor.self, from: Data(text.utf8)) == actor)
        #expect(text.hasSuffix(#","via":"nats","natsUser":"ops"}"#))
    }
}
