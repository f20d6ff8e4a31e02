import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksDaemon

@Suite struct ReplicaStateMachineTests {
    let a = Book(id: "a", name: "Alpha", author: "Ann")
    let b = Book(id: "b", name: "Beta", author: "Bob")
    let c = Book(id: "c", name: "Gamma", author: "Cid")

    @Test func aFirstStartCopiesTheOwnersBooksIntoAnEmptyFile() {
        var driver = ReplicaDriver(owner: [a, b, c])
        driver.start()
        #expect(driver.localBooks == [a, b, c])
        #expect(driver.machine.inSync)
        #expect(driver.sendsSeen == 0)
        #expect(driver.persisted?.seq == 1)
    }

    /// Each local write is one commit of the whole file by the engine: a first copy is one
    /// write of the whole snapshot, and a large owner change set one write, however many books
    /// (at 1M books, writes of `SaveLimits.maxChanges` were a hundred commits of a 70 MB file).
    @Test func aFirstCopyAndALargeOwnerChangeAreEachOneLocalWrite() {
        let books = (0..<25_000).map { Book(id: "\($0)", name: "Title \($0)", author: "Author") }
        var driver = ReplicaDriver(owner: books)
        driver.start()
        #expect(driver.localBooks.count == 25_000)
        #expect(driver.localWritesSeen == 1, "25,000 books in one write, not in saves of \(SaveLimits.maxChanges)")
        #expect(driver.machine.inSync)
        driver.ownerWrite(updated: books.prefix(15_000).map { Book(id: $0.id, name: $0.name + "!", author: $0.author) })
        driver.deliver()
        #expect(driver.localWritesSeen == 2)
        #expect(driver.localBooks.filter { $0.name.hasSuffix("!") }.count == 15_000)
        #expect(driver.machine.inSync)
    }

    /// A first copy looks at each book once: the write's own change set and its finish settle
    /// the rows it wrote without another pass over them (at 1M books each pass was ~15 s).
    @Test func aFirstCopyLooksAtEachBookOnce() {
        let books = (0..<5_000).map { Book(id: "\($0)", name: "Title \($0)", author: "Author") }
        var driver = ReplicaDriver(owner: books)
        driver.start()
        #expect(driver.localBooks.count == 5_000)
        #expect(driver.machine.inSync)
        #expect(driver.machine.booksReconsidered == 5_000, "\(driver.machine.booksReconsidered) looks at 5,000 books")
        // A merged row the write makes is still sent (it is not the owner's state).
        driver.offline = true
        driver.run(.connectivity(online: false, at: Date()))
        driver.handEdit(set: [Book(id: "7", name: "Mine", author: "Author")])
        driver.ownerWrite(updated: [Book(id: "7", name: "Title 7", author: "Theirs")])
        driver.deliver()
        driver.offline = false
        driver.run(.connectivity(online: true, at: Date()))
        driver.settle()
        #expect(driver.localBooks.first { $0.id == "7" } == Book(id: "7", name: "Mine", author: "Theirs"))
        #expect(driver.ownerBooks.first { $0.id == "7" } == Book(id: "7", name: "Mine", author: "Theirs"))
        #expect(driver.machine.inSync)
    }

    /// A first copy is written batch by batch: each local write costs the books it writes, not
    /// a pass over every book still to write (at 1M books, a write of 10,000 took 25-30 s).
    @Test func aFirstCopyLooksAtEachBookAFewTimesNotOncePerWrite() {
        let books = (0..<5_000).map { Book(id: "\($0)", name: "Title \($0)", author: "Author") }
        var driver = ReplicaDriver(owner: books, localBatchLimit: 100)
        driver.start()
        #expect(driver.localBooks.count == 5_000)
        #expect(driver.localWritesSeen == 50)
        #expect(driver.machine.inSync)
        #expect(
            driver.machine.booksReconsidered <= 5 * 5_000,
            "\(driver.machine.booksReconsidered) looks at 5,000 books written in 50 writes")
    }

    /// Local rows the owner lacks are sent batch by batch: each send costs the books it carries,
    /// not a pass over every edit still to send.
    @Test func localRowsTheOwnerLacksAreSentLookingAtEachAFewTimesNotOncePerSend() {
        let books = (0..<5_000).map { Book(id: "\($0)", name: "Title \($0)", author: "Author") }
        var driver = ReplicaDriver(local: books, batchLimit: 100)
        driver.start()
        driver.settle()
        #expect(driver.ownerBooks.count == 5_000)
        #expect(driver.sendsSeen == 50)
        #expect(driver.machine.inSync)
        #expect(
            driver.machine.booksReconsidered <= 5 * 5_000,
            "\(driver.machine.booksReconsidered) looks at 5,000 books sent in 50 sends")
    }

    @Test func aFirstStartProposesLocalRowsTheOwnerLacksAndDropsNothing() {
        let mine = Book(id: "a", name: "Alpha (local)", author: "Ann")
        var driver = ReplicaDriver(owner: [a, b], local: [mine, c])
        driver.start()
        driver.settle()
        #expect(driver.ownerBooks.contains(c), "a local row the owner lacks is inserted there")
        #expect(driver.ownerBooks.contains(b))
        #expect(driver.localBooks == driver.ownerBooks)
        #expect(driver.localBooks.contains(mine), "a differing local row stands (stale-save rule), listed")
        #expect(driver.conflicts.map(\.id) == ["a"])
        #expect(driver.machine.inSync)
    }

    @Test func everyOwnerChangeSetIsAppliedOnceAndAGapAsksForASnapshot() {
        var driver = ReplicaDriver(owner: [a])
        driver.start()
        driver.ownerWrite(inserted: [b])
        driver.deliver()
        #expect(driver.localBooks == [a, b])
        driver.run(.ownerChanged(driver.stream[1]))  // a replay
        #expect(driver.localBooks == [a, b])
        #expect(driver.snapshotsAsked == 0)
        driver.ownerWrite(inserted: [c])
        driver.ownerWrite(deleted: ["a"])
        driver.delivered += 1  // the stream lost seq 3
        driver.deliver()
        #expect(driver.snapshotsAsked == 1)
        #expect(driver.localBooks == [a, b], "nothing after a gap is applied")
        driver.snapshot()
        #expect(driver.localBooks == [b, c])
    }

    @Test func aHandEditIsSentConditionallyOnceAndSettledByItsChangeSet() {
        var driver = ReplicaDriver(owner: [a, b])
        driver.start()
        let renamed = Book(id: "b", name: "Beta 2", author: "Bob")
        driver.handEdit(set: [renamed])
        #expect(driver.sendsSeen == 1)
        #expect(driver.ownerBooks == [a, renamed])
        #expect(!driver.machine.inSync, "the owner's change set has not come back yet")
        driver.settle()
        #expect(driver.sendsSeen == 1, "sent once")
        #expect(driver.machine.inSync)
        #expect(driver.localBooks == [a, renamed])
    }

    @Test func aLocalEditAndANewerOwnerChangeOfTheSameBookAreMergedFieldByField() {
        var driver = ReplicaDriver(owner: [a])
        driver.offline = true
        driver.start()
        driver.handEdit(set: [Book(id: "a", name: "Alpha (renamed here)", author: "Ann")])
        driver.ownerWrite(updated: [Book(id: "a", name: "Alpha", author: "Ann Other")])
        driver.deliver()
        let merged = Book(id: "a", name: "Alpha (renamed here)", author: "Ann Other")
        #expect(driver.localBooks == [merged], "the owner's author is merged into the local edit")
        driver.offline = false
        driver.run(.connectivity(online: true, at: Date()))
        driver.settle()
        #expect(driver.ownerBooks == [merged])
        #expect(driver.localBooks == [merged])
        #expect(driver.conflicts.isEmpty)
        #expect(driver.machine.inSync)
    }

    @Test func aRefusedEditIsRebasedWhenTheOwnersChangeArrives() {
        var driver = ReplicaDriver(owner: [a])
        driver.start()
        driver.ownerWrite(updated: [Book(id: "a", name: "Alpha", author: "Ann Other")])  // not delivered yet
        driver.handEdit(set: [Book(id: "a", name: "Alpha!", author: "Ann")])
        #expect(driver.sendsSeen == 1)
        #expect(driver.ownerBooks == [Book(id: "a", name: "Alpha", author: "Ann Other")], "refused: version moved")
        driver.settle()
        let merged = Book(id: "a", name: "Alpha!", author: "Ann Other")
        #expect(driver.ownerBooks == [merged])
        #expect(driver.localBooks == [merged])
    }

    @Test func theSameFieldChangedOnBothSidesKeepsTheLocalValueAndListsTheConflict() {
        var driver = ReplicaDriver(owner: [a])
        driver.start()
        driver.ownerWrite(updated: [Book(id: "a", name: "Theirs", author: "Ann")])
        driver.handEdit(set: [Book(id: "a", name: "Mine", author: "Ann")])
        driver.settle()
        #expect(driver.conflicts.map(\.id) == ["a"])
        #expect(driver.ownerBooks == [Book(id: "a", name: "Mine", author: "Ann")])
        #expect(driver.localBooks == driver.ownerBooks)
    }

    @Test func aConflictingMergeIsSentWithTheBaseItsEditWasMadeOn() {
        var driver = ReplicaDriver(owner: [a, b])
        driver.start()
        driver.ownerWrite(updated: [Book(id: "a", name: "Theirs", author: "Ann")])  // seq 2
        driver.handEdit(set: [Book(id: "a", name: "Mine", author: "Ann"), Book(id: "b", name: "Beta 2", author: "Bo")])
        driver.settle()
        // b went as a plain conditional write; a, merged with a conflict, alone with the base
        // (seq 1: the owner state its row was edited on), so the owner keeps the conflict.
        #expect(driver.sendBases.compactMap { $0 } == [ResumePoint(epoch: "O", seq: 1)])
        #expect(
            driver.ownerBooks == [
                Book(id: "a", name: "Mine", author: "Ann"), Book(id: "b", name: "Beta 2", author: "Bo"),
            ])
        #expect(driver.localBooks == driver.ownerBooks)
    }

    @Test func aDeleteAgainstAnEditKeepsTheEditedBook() {
        var driver = ReplicaDriver(owner: [a, b])
        driver.start()
        driver.ownerWrite(deleted: ["a"])
        let edited = Book(id: "a", name: "Alpha kept", author: "Ann")
        driver.handEdit(set: [edited])
        driver.settle()
        #expect(driver.ownerBooks == [edited, b])
        #expect(driver.localBooks == [edited, b])
    }

    @Test func editsMadeOfflineAreQueuedAndSentWhenTheConnectionComesBack() {
        var driver = ReplicaDriver(owner: [a])
        driver.offline = true
        driver.start()
        driver.handEdit(set: [b])
        driver.handEdit(delete: ["a"])
        driver.run(.retry)
        #expect(driver.ownerBooks == [a])
        #expect(driver.machine.queuedEdits == 2)
        #expect(driver.machine.offlineSince != nil)
        #expect(
            driver.machine.statusLine.hasPrefix("offline since 1970-01-01T00:00:00"), "\(driver.machine.statusLine)")
        #expect(driver.machine.statusLine.contains("2 edit(s) queued"))
        driver.offline = false
        driver.run(.connectivity(online: true, at: Date()))
        driver.settle()
        #expect(driver.machine.statusLine.hasPrefix("in sync"), "\(driver.machine.statusLine)")
        let behind = driver.machine.statusLine(ownerBacklog: 3)
        #expect(behind.hasPrefix("behind the owner by 3 change set(s)"), "\(behind)")
        #expect(driver.ownerBooks == [b])
        #expect(driver.localBooks == [b])
        #expect(driver.machine.queuedEdits == 0)
    }

    @Test func aRestartFromThePersistedRecordSendsTheEditsMadeWhileDown() {
        var first = ReplicaDriver(owner: [a, b])
        first.start()
        first.ownerWrite(inserted: [c])
        first.deliver()
        let record = first.persisted!
        // Down: the file is edited, the owner moves on.
        var second = ReplicaDriver(record: record)
        (second.owner, second.ownerSeq, second.stream, second.delivered) = (
            first.owner, first.ownerSeq, first.stream, 2
        )
        second.local = first.local
        second.localSeq = first.localSeq
        let renamed = Book(id: "a", name: "Alpha edited while down", author: "Ann")
        second.local["a"] = ReplicaBook(book: renamed, version: 99)
        second.local["c"] = nil
        second.ownerWrite(updated: [Book(id: "b", name: "Beta", author: "Bob (owner)")])
        second.run(.localLoaded(seq: second.localSeq, books: second.local.values.sorted { $0.book.id < $1.book.id }))
        second.run(.connectivity(online: true, at: Date()))
        second.settle()
        let expected = [renamed, Book(id: "b", name: "Beta", author: "Bob (owner)")]
        #expect(second.ownerBooks == expected)
        #expect(second.localBooks == expected)
        #expect(second.snapshotsAsked == 0, "resumed from the persisted position")
    }

    @Test func aLostAnswerIsRetriedWithoutWritingTwice() {
        var driver = ReplicaDriver(owner: [a])
        driver.start()
        driver.loseNextAnswers = 1
        let edited = Book(id: "a", name: "Alpha 2", author: "Ann")
        driver.handEdit(set: [edited])
        #expect(driver.ownerSeq == 2)
        driver.run(.retry)  // resent: refused (the version moved), settled by the change set
        driver.settle()
        #expect(driver.ownerSeq == 2, "the owner wrote the edit once")
        #expect(driver.localBooks == [edited])
        #expect(driver.machine.inSync)
    }

    @Test func aNewOwnerLineageIsTakenFromItsSnapshot() {
        var driver = ReplicaDriver(owner: [a, b])
        driver.start()
        driver.ownerEpoch = "O2"
        driver.ownerWrite(deleted: ["b"])
        driver.deliver()
        #expect(driver.snapshotsAsked == 1)
        driver.snapshot()
        #expect(driver.localBooks == [a])
        #expect(driver.machine.inSync)
    }
}
