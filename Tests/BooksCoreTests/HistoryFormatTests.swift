import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksCore

/// The saved-history formats: snapshot and journal round trips, and every kind of
/// damage detected — without files.
@Suite("History formats")
struct HistoryFormatTests {
    /// A context that went through `edits` random file edits, recording its transitions.
    static func editedContext(seed: UInt64, edits: Int) -> (BookLedger, [LedgerTransition]) {
        var random = SplitMix64(seed: seed)
        var rows = (0..<40).map { "id\($0)|Name \($0)|Author \($0)" }
        var context = BookLedger(document: BookDocument(parsing: Array(rows.joined(separator: "\n").utf8) + [10]))
        context.recordsTransitions = true
        for k in 0..<edits {
            let i = Int.random(in: 0..<rows.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: rows[i] = "id\(i)|Renamed \(k)|Author \(i)"
            case 1: rows.insert("new\(k)|Inserted \(k)|Someone", at: i)
            case 2: rows.remove(at: i)
            case 3: rows[i] = "id\(i)|broken row without author"  // a slip: the book is held
            default: rows.insert("# comment \(k)", at: i)  // no book changes
            }
            context.apply(
                bytes: Array(rows.joined(separator: "\n").utf8) + [10], source: k % 2 == 0 ? .file : .client,
                time: Date(timeIntervalSinceReferenceDate: Double(k) + 0.25))
        }
        return (context, context.takeTransitions())
    }

    static func expectSame(_ a: BookLedger, _ b: BookLedger) {
        #expect(a.epoch == b.epoch && a.seq == b.seq && a.lastChange == b.lastChange)
        #expect(a.document.bytes == b.document.bytes)
        #expect(a.books == b.books)
        #expect(a.held == b.held)
        #expect(a.saved.versions == b.saved.versions)
        #expect(a.log.changes(after: 0, currentSeq: a.seq) == b.log.changes(after: 0, currentSeq: b.seq))
    }

    @Test("a snapshot round-trips the whole context", arguments: [1, 2, 3] as [UInt64])
    func snapshotRoundTrip(seed: UInt64) throws {
        let (context, _) = Self.editedContext(seed: seed, edits: 60)
        let bytes = HistorySnapshotFormat.encode(context.saved, fileKey: "text:/b.txt", snapshotID: 42).flatMap { $0 }
        let decoded = try HistorySnapshotFormat.decode(bytes)
        #expect(decoded.fileKey == "text:/b.txt" && decoded.snapshotID == 42)
        #expect(decoded.context == context.saved)
        Self.expectSame(BookLedger(restoring: decoded.context, retention: 10_000), context)
    }

    @Test("journal records round-trip, and replaying them rebuilds the live context exactly")
    func journalReplay() throws {
        var random = SplitMix64(seed: 9)
        for _ in 0..<5 {
            let (start, _) = Self.editedContext(seed: random.next(), edits: 10)
            var live = start
            live.recordsTransitions = true
            _ = live.takeTransitions()
            var rows = live.books.map { "\($0.id)|\($0.name)|\($0.author)" }
            for k in 0..<30 {
                rows.shuffle(using: &random)
                rows[0] = "id\(k)|Edit \(k)|A"
                live.apply(bytes: Array(rows.prefix(30).joined(separator: "\n").utf8), source: .file)
            }
            let transitions = live.takeTransitions()
            #expect(!transitions.isEmpty)
            let header = HistoryJournalFormat.Header(
                closedCleanly: false, snapshotID: 7, baseSeq: start.seq, bootID: Array(repeating: 3, count: 16))
            let journal = HistoryJournalFormat.encode(header) + transitions.flatMap { HistoryJournalFormat.encode($0) }
            let (decodedHeader, decoded) = try HistoryJournalFormat.decode(journal)
            #expect(decodedHeader == header)
            #expect(decoded == transitions)
            var restored = BookLedger(restoring: start.saved, retention: 10_000)
            for transition in decoded {
                let replayed = restored.replay(transition)
                #expect(replayed)
            }
            Self.expectSame(restored, live)
        }
    }

    @Test("a touch (a JSON book's unknown members edited) is journaled and replays to the same change set")
    func touchReplay() throws {
        let (start, _) = Self.editedContext(seed: 11, edits: 5)
        var live = start
        live.recordsTransitions = true
        _ = live.takeTransitions()
        let ids = Array(live.books.prefix(2).map(\.id))
        let touch = live.touch(ids: ids + ["no-such-book"], source: .file)
        let touched = try #require(touch)
        #expect(touched.changes.isTouch && touched.changes.updated.map(\.new.id) == ids)
        live.apply(bytes: live.document.bytes + Array("t1|After|A\n".utf8), source: .client)
        let transitions = live.takeTransitions()
        #expect(transitions.count == 2)
        let header = HistoryJournalFormat.Header(
            closedCleanly: false, snapshotID: 1, baseSeq: start.seq, bootID: Array(repeating: 2, count: 16))
        let journal = HistoryJournalFormat.encode(header) + transitions.flatMap { HistoryJournalFormat.encode($0) }
        var restored = BookLedger(restoring: start.saved, retention: 10_000)
        for transition in try HistoryJournalFormat.decode(journal).1 {
            let replayed = restored.replay(transition)
            #expect(replayed)
        }
        Self.expectSame(restored, live)
        #expect(restored.version(of: ids[0]) == touched.seq)
    }

    static func sampleJournal() -> [UInt8] {
        let (_, transitions) = editedContext(seed: 5, edits: 8)
        let header = HistoryJournalFormat.Header(
            closedCleanly: false, snapshotID: 1, baseSeq: 0, bootID: Array(repeating: 1, count: 16))
        return HistoryJournalFormat.encode(header) + transitions.flatMap { HistoryJournalFormat.encode($0) }
    }

    @Test("a torn journal (cut at any byte inside a record) is detected")
    func tornJournal() {
        let journal = Self.sampleJournal()
        let (_, all) = try! HistoryJournalFormat.decode(journal)
        var boundaries: Set<Int> = [HistoryJournalFormat.headerSize]
        var offset = HistoryJournalFormat.headerSize
        for transition in all {
            offset += HistoryJournalFormat.encode(transition).count
            boundaries.insert(offset)
        }
        for cut in 0..<journal.count where !boundaries.contains(cut) {
            #expect(throws: HistoryFormatError.self) { try HistoryJournalFormat.decode(Array(journal[..<cut])) }
        }
    }

    @Test("a flipped bit anywhere in a journal or a snapshot is detected")
    func bitFlips() {
        let journal = Self.sampleJournal()
        for index in stride(from: 0, to: journal.count, by: 3) {
            var damaged = journal
            damaged[index] ^= UInt8(1 << (index % 8))
            #expect(throws: HistoryFormatError.self) { try HistoryJournalFormat.decode(damaged) }
        }
        let (context, _) = Self.editedContext(seed: 2, edits: 20)
        let snapshot = HistorySnapshotFormat.encode(context.saved, fileKey: "k", snapshotID: 1).flatMap { $0 }
        for index in stride(from: 0, to: snapshot.count, by: 5) {
            var damaged = snapshot
            damaged[index] ^= UInt8(1 << (index % 8))
            #expect(throws: HistoryFormatError.self) { try HistorySnapshotFormat.decode(damaged) }
        }
    }

    @Test("CRC-32C matches the standard check value, hardware or table")
    func crcCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(CRC32C.checksum(data[500...], continuing: CRC32C.checksum(data[..<500])) == CRC32C.checksum(data))
        let table = data.withUnsafeBytes {
            CRC32C.tableChecksum(UnsafeRawBufferPointer(rebasing: $0[3...]), continuing: 0)
        }
        #expect(table == CRC32C.checksum(data[3...]))
    }
}
