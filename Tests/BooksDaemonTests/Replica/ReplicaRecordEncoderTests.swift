import BooksCore
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// The record's hand-written JSON reads back (with `JSONDecoder`, as `ReplicaRecordStore.load`
/// does) into the same values, every optional present or absent, and stays fast at a million
/// entries (what a first copy's update names).
@Suite struct ReplicaRecordEncoderTests {
    static let entries: [String: ReplicaEntry] = [
        "a": ReplicaEntry(owner: ReplicaBook(book: Book(id: "a", name: "Dune \"2\"", author: "F\\H"), version: 3)),
        "b": ReplicaEntry(base: ReplicaBook(book: Book(id: "b", name: "Émile\n", author: "R\u{2028}"), version: 1)),
        "c": ReplicaEntry(
            owner: ReplicaBook(book: Book(id: "c", name: "x", author: "y"), version: 9),
            base: ReplicaBook(book: Book(id: "c", name: "x", author: "z"), version: 8),
            sent: SentEdit(book: Book(id: "c", name: "x", author: "w"), version: 10)),
        "d|odd": ReplicaEntry(sent: SentEdit(book: nil, version: 4)),
        "e": ReplicaEntry(
            owner: ReplicaBook(book: Book(id: "e", name: "Same", author: "Both"), version: 2),
            base: ReplicaBook(book: Book(id: "e", name: "Same", author: "Both"), version: 2)),
    ]

    @Test func aRecordReadsBackAsTheSameValue() throws {
        var record = ReplicaRecord(replicaID: "R-1", epoch: "E", seq: 12, entries: Self.entries)
        record.generation = 7
        let decoded = try JSONDecoder().decode(ReplicaRecord.self, from: Data(ReplicaRecordEncoder.record(record)))
        #expect(decoded == record)
        let fresh = ReplicaRecord(replicaID: "R-2")
        #expect(try JSONDecoder().decode(ReplicaRecord.self, from: Data(ReplicaRecordEncoder.record(fresh))) == fresh)
    }

    @Test func aLogLineReadsBackAsTheSameUpdate() throws {
        for update in [
            ReplicaRecordUpdate(epoch: "E", seq: 2, set: Self.entries, removed: ["x", "y\"z"]),
            ReplicaRecordUpdate(epoch: nil, seq: 0),
        ] {
            let line = try JSONDecoder().decode(
                ReplicaRecordStore.LogLine.self, from: Data(ReplicaRecordEncoder.logLine(generation: 5, update)))
            #expect(line.generation == 5 && line.update == update)
        }
    }

    @Test func aFirstCopyOfAHundredThousandBooksIsEncodedQuickly() {
        var set: [String: ReplicaEntry] = [:]
        for index in 0..<100_000 {
            let book = ReplicaBook(book: Book(id: "\(index)", name: "Title \(index)", author: "Author"), version: 1)
            set["\(index)"] = ReplicaEntry(owner: book, base: book)
        }
        let start = ContinuousClock.now
        let line = ReplicaRecordEncoder.logLine(generation: 1, ReplicaRecordUpdate(epoch: "E", seq: 0, set: set))
        let elapsed = ContinuousClock.now - start
        #expect(line.count > 100_000 * 60, "each settled entry written once: \(line.count) bytes")
        #expect(elapsed < .seconds(20), "debug build, loaded machine: \(elapsed)")
    }

    /// The record written a chunk at a time is the same JSON, and a settled entry's book is in
    /// it once; a record written before (owner and base both spelled out) still reads back.
    @Test func aRecordInChunksIsTheSameAndASettledEntryIsWrittenOnce() throws {
        let record = ReplicaRecord(replicaID: "R-1", epoch: "E", seq: 12, entries: Self.entries)
        let whole = ReplicaRecordEncoder.record(record)
        let chunks = Array(ReplicaRecordEncoder.recordChunks(record, chunkSize: 16))
        #expect(chunks.count > 3)
        #expect(Array(chunks.joined()) == whole)
        let text = String(decoding: whole, as: UTF8.self)
        #expect(text.components(separatedBy: "Same").count == 2, "\(text)")
        let older =
            Data(#"{"owner":{"book":{"id":"e","name":"S","author":"B"},"version":2},"#.utf8)
            + Data(#""base":{"book":{"id":"e","name":"S","author":"B"},"version":2}}"#.utf8)
        let entry = try JSONDecoder().decode(ReplicaEntry.self, from: older)
        #expect(entry.isSettled && entry.owner?.book.name == "S" && entry.base?.version == 2)
    }
}
