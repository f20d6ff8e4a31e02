import BooksCore
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// A replica's record holds an entry per book of the store: an entry costs one book's room,
/// whatever it holds, and reads back exactly what it was given (byte for byte, every version).
@Suite struct ReplicaEntryTests {
    static let composed = ReplicaBook(book: Book(id: "a", name: "Caf\u{E9}", author: "A"), version: 3)
    static let decomposed = ReplicaBook(book: Book(id: "a", name: "Cafe\u{301}", author: "A"), version: 3)
    static let later = ReplicaBook(book: Book(id: "a", name: "Caf\u{E9}", author: "A"), version: 4)
    static let sent = SentEdit(book: Book(id: "a", name: "New", author: "A"), version: 5)

    @Test func anEntryTakesTheRoomOfOneBook() {
        #expect(MemoryLayout<ReplicaEntry>.size <= MemoryLayout<ReplicaBook>.size + 1)
    }

    @Test func everyShapeReadsBackExactly() throws {
        let books: [ReplicaBook?] = [nil, Self.composed, Self.decomposed, Self.later]
        for owner in books {
            for base in books {
                for sent in [nil, Self.sent, SentEdit(book: nil, version: 6)] {
                    let entry = ReplicaEntry(owner: owner, base: base, sent: sent)
                    #expect(Self.identical(entry.owner, owner) && Self.identical(entry.base, base))
                    #expect(entry.sent == sent)
                    #expect(entry.isEmpty == (owner == nil && base == nil && sent == nil))
                    let decoded = try JSONDecoder().decode(ReplicaEntry.self, from: JSONEncoder().encode(entry))
                    #expect(Self.identical(decoded.owner, owner) && Self.identical(decoded.base, base))
                    #expect(decoded == entry && decoded.sent == sent)
                }
            }
        }
    }

    @Test func changingOneSlotKeepsTheOthers() {
        var entry = ReplicaEntry(owner: Self.composed)
        entry.base = Self.composed
        #expect(entry.isSettled && entry.owner == Self.composed)
        entry.sent = Self.sent
        #expect(!entry.isSettled && entry.base == Self.composed && entry.owner == Self.composed)
        entry.owner = Self.later
        entry.sent = nil
        #expect(!entry.isSettled && entry.owner == Self.later && entry.base == Self.composed)
        entry.base = Self.decomposed
        entry.owner = Self.composed
        #expect(!entry.isSettled, "canonically equal, not the same bytes")
        #expect(Self.identical(entry.base, Self.decomposed) && Self.identical(entry.owner, Self.composed))
    }

    static func identical(_ a: ReplicaBook?, _ b: ReplicaBook?) -> Bool {
        a?.version == b?.version && (a?.book).isIdentical(to: b?.book)
    }

    /// The file's rows, as the engine reports them (strings of their own), are kept with the
    /// bytes of the record's books when byte for byte the same, under the record's own key
    /// string: one buffer and one id string per book.
    @Test func aFileRowLikeTheRecordsBookSharesItsStrings() {
        let ids = (0..<3).map { "6513270e-269e-4d37-b2a7-4de452e6b43\($0)" }
        var record = ReplicaRecord(replicaID: "R", epoch: "E", seq: 1)
        for id in ids {
            let book = ReplicaBook(book: Book(id: id, name: "The Last Garden of Winter", author: "A"), version: 1)
            record.entries[id] = ReplicaEntry(owner: book, base: book)
        }
        var machine = ReplicaStateMachine(record: record)
        let rows = ids.map { id in
            // New strings with the same bytes, as parsing the file makes them.
            let fresh = Book(
                id: String(decoding: Array(id.utf8), as: UTF8.self),
                name: String(decoding: Array("The Last Garden of Winter".utf8), as: UTF8.self), author: "A")
            return ReplicaBook(book: fresh, version: 4)
        }
        _ = machine.handle(.localLoaded(seq: 4, books: rows))
        for id in ids {
            #expect(machine.file[id]!.packed.sharesStorage(with: record.entries[id]!.base!.packed))
            let fileKey = machine.file[machine.file.index(forKey: id)!].key
            let recordKey = machine.record.entries[machine.record.entries.index(forKey: id)!].key
            #expect(Self.storage(fileKey) == Self.storage(recordKey))
        }
        #expect(!rows[0].packed.sharesStorage(with: record.entries[ids[0]]!.base!.packed))
        // Rows the engine reports in a change set (strings of their own) are kept the same way.
        let fresh = Book(
            id: String(decoding: Array(ids[1].utf8), as: UTF8.self),
            name: String(decoding: Array("The Last Garden of Winter".utf8), as: UTF8.self), author: "A")
        _ = machine.handle(
            .localChanged(
                SequencedChangeSet(
                    epoch: "L", seq: 5, source: .file, time: Date(),
                    changes: ChangeSet(updated: [BookUpdate(old: fresh, new: fresh)]))))
        #expect(machine.file[ids[1]]!.packed.sharesStorage(with: record.entries[ids[1]]!.base!.packed))
        let key = machine.file[machine.file.index(forKey: ids[1])!].key
        #expect(Self.storage(key) != Self.storage(fresh.id))
    }

    static func storage(_ text: String) -> UnsafeRawPointer? {
        var copy = text
        return copy.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }
}
