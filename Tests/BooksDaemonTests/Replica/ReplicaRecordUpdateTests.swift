import BooksCore
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// What the replica machine asks to keep costs what changed: an owner change set or a hand
/// edit of one book among many persists that book's entry alone, and the updates rebuild the
/// record (the driver checks that after every input).
@Suite struct ReplicaRecordUpdateTests {
    static let books = (0..<1000).map { Book(id: "id\(10000 + $0)", name: "Name \($0)", author: "A") }

    @Test func anOwnerChangeOfOneBookAmongAThousandKeepsOneEntry() {
        var driver = ReplicaDriver(owner: Self.books)
        driver.start()
        #expect(driver.machine.inSync)
        driver.updates.removeAll()
        let changed = Book(id: "id10500", name: "Renamed on the owner", author: "A")
        driver.ownerWrite(updated: [changed])
        driver.deliver()
        #expect(driver.localBooks.first { $0.id == "id10500" } == changed)
        let touched = Set(driver.updates.flatMap { Array($0.set.keys) + $0.removed })
        #expect(touched == ["id10500"])
        #expect(driver.updates.last?.seq == driver.ownerSeq)
        #expect(driver.machine.inSync)
    }

    @Test func aHandEditOfOneBookKeepsOneEntryAndIsCountedAsQueuedUntilSent() {
        var driver = ReplicaDriver(owner: Self.books)
        driver.offline = true
        driver.start()
        driver.updates.removeAll()
        driver.handEdit(delete: ["id10007"])
        #expect(driver.machine.queuedEdits == 1)
        #expect(!driver.machine.inSync)
        #expect(driver.updates.isEmpty, "a queued edit changes no entry: the file is the queue")
        driver.offline = false
        driver.run(.connectivity(online: true, at: Date()))
        driver.settle()
        #expect(!driver.ownerBooks.contains { $0.id == "id10007" })
        #expect(driver.machine.queuedEdits == 0)
        #expect(driver.machine.inSync)
        #expect(Set(driver.updates.flatMap { Array($0.set.keys) + $0.removed }) == ["id10007"])
    }

    @Test func updatesFollowedByNewerOnesKeepTheNewestOfEachEntry() {
        let entry = ReplicaEntry(owner: ReplicaBook(book: Self.books[0], version: 1))
        let first = ReplicaRecordUpdate(epoch: "E", seq: 1, set: ["a": entry, "b": entry], removed: ["c"])
        let second = ReplicaRecordUpdate(epoch: "E", seq: 2, set: ["c": entry], removed: ["a"])
        let merged = first.followed(by: second)
        #expect(merged.seq == 2)
        #expect(Set(merged.set.keys) == ["b", "c"])
        #expect(merged.removed == ["a"])
        var one = ReplicaRecord(replicaID: "R", entries: ["a": entry, "c": entry, "d": entry])
        var two = one
        one.apply(first)
        one.apply(second)
        two.apply(merged)
        #expect(one == two)
    }

    /// A first copy of more than `wholeFloor` books is kept as the whole record, not as an
    /// update holding a second table of every entry (at 1M books ~160 MB beside the record's
    /// own); later small changes are updates of their entries again.
    @Test func aFirstCopyIsKeptAsTheWholeRecordNotASecondTableOfIt() {
        let books = (0..<3_000).map { Book(id: "id\(10000 + $0)", name: "Name \($0)", author: "A") }
        var driver = ReplicaDriver(owner: books)
        driver.start()
        #expect(driver.machine.inSync)
        #expect(driver.updates.contains { $0.whole })
        #expect(driver.updates.allSatisfy { $0.set.count <= ReplicaRecordUpdate.wholeFloor })
        driver.updates.removeAll()
        driver.ownerWrite(updated: [Book(id: "id10005", name: "Renamed", author: "A")])
        driver.deliver()
        #expect(driver.updates.allSatisfy { !$0.whole })
        #expect(Set(driver.updates.flatMap { Array($0.set.keys) }) == ["id10005"])
    }

    @Test func aWholeUpdateStaysWholeWhenMergedWithAnother() {
        let entry = ReplicaEntry(owner: ReplicaBook(book: Self.books[0], version: 1))
        let part = ReplicaRecordUpdate(epoch: "E", seq: 1, set: ["a": entry])
        let whole = ReplicaRecordUpdate.whole(epoch: "E", seq: 2)
        for merged in [part.followed(by: whole), whole.followed(by: part)] {
            #expect(merged.whole && merged.set.isEmpty && merged.removed.isEmpty)
        }
        #expect(part.followed(by: whole).seq == 2 && whole.followed(by: part).seq == 1)
    }
}
