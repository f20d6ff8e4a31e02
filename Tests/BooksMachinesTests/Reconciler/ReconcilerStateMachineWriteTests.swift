import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// Group commit, retries and conflicts, on the pure core (see `ReconcilerDriver`).
@Suite struct ReconcilerStateMachineWriteTests {
    static let two = ReconcilerStateMachineTests.two

    func insert(_ id: String, _ name: String) -> WriteOperation {
        .insert([BookDraft(id: id, name: name, author: "A")])
    }

    func isSuccess(_ reply: Reply) -> Bool { reply.ok }

    func errorCode(_ reply: Reply) -> ProtocolError.ErrorCode? { reply.error?.code }

    @Test func insertsIntoAnUntouchedFileAreSavedWithoutARead() {
        var driver = ReconcilerDriver(Self.two)
        let reads = driver.fileReads
        driver.write([("w", insert("3", "Ulysses"))])
        #expect(driver.fileReads == reads, "the file kept its identity: no re-read before the append")
        #expect(driver.saves == 1)
        #expect(driver.broadcasts.map(\.source) == [.client])
        #expect(driver.replies.count == 1 && isSuccess(driver.replies[0].1))
        #expect(driver.text == Self.two + "3|Ulysses|A\n")
    }

    @Test func writesArrivingTogetherAreOneSaveAndOneChangeSet() {
        var driver = ReconcilerDriver(Self.two)
        driver.write([
            ("a", insert("3", "C")), ("b", insert("4", "D")),
            ("c", .update([BookPatch(id: "1", name: "Dune Messiah")])),
        ])
        #expect(driver.saves == 1)
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts[0].changes.inserted.map(\.id) == ["3", "4"])
        #expect(driver.broadcasts[0].changes.updated.map(\.new.name) == ["Dune Messiah"])
        #expect(driver.replies.map(\.1).allSatisfy(isSuccess))
        #expect(driver.replies.count == 3)
    }

    @Test func aWriteTouchingABookAlreadyInTheGroupWaitsForTheNextCommit() {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("a", .update([BookPatch(id: "1", name: "X")])), ("b", .update([BookPatch(id: "1", name: "Y")]))])
        #expect(driver.saves == 2)
        #expect(driver.broadcasts.map { $0.changes.updated.map(\.new.name) } == [["X"], ["Y"]])
        #expect(driver.replies.map { $0.1.id } == ["a", "b"])
        #expect(driver.text == "1|Y|Herbert\n2|Emma|Austen\n")
    }

    @Test func aStaleExpectedVersionIsAConflictCarryingTheCurrentBook() {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("w", .update([BookPatch(id: "2", name: "Persuasion", expectedVersion: 9)]))])
        #expect(driver.saves == 0)
        #expect(driver.broadcasts.isEmpty)
        guard let error = driver.replies.first?.1.error else {
            Issue.record("expected a conflict")
            return
        }
        #expect(error.code == .conflict)
        #expect(error.current == Book(id: "2", name: "Emma", author: "Austen"))
        #expect(error.currentVersion == 0)
    }

    @Test func aHandEditDuringTheSaveIsKeptAndTheWriteIsRetriedOnTopOfIt() {
        var driver = ReconcilerDriver(Self.two)
        driver.edit("1|Dune|Frank Herbert\n2|Emma|Austen\n")  // not yet seen by the watcher
        var raced = false
        driver.beforeSave = { driver in
            guard !raced else { return nil }
            raced = true
            driver.edit("1|Dune|Frank Herbert\n2|Emma|Jane Austen\n")  // lands while the save runs
            return .changedDuringWrite(path: "books.txt")
        }
        driver.write([("w", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        #expect(driver.replies.isEmpty, "not acknowledged before it is in the file")
        #expect(driver.fireRetry() == true)
        #expect(driver.replies.count == 1 && isSuccess(driver.replies[0].1))
        #expect(driver.text == "1|Dune Messiah|Frank Herbert\n2|Emma|Jane Austen\n", "both edits are in the file")
        // The edit seen before the save, the one that raced it, then the client's write.
        #expect(driver.broadcasts.map(\.source) == [.file, .file, .client])
        #expect(driver.broadcasts[1].changes.updated.map(\.new.author) == ["Jane Austen"])
        #expect(driver.broadcasts.last?.changes.updated.map(\.new.name) == ["Dune Messiah"])
    }

    @Test func writesToAFileBeingReplacedAreRefusedWithARetryHint() {
        var driver = ReconcilerDriver(ReconcilerStateMachineTests.five)
        driver.edit("")
        driver.event()
        driver.write([("w", insert("9", "Z"))])
        #expect(errorCode(driver.replies[0].1) == .storeUnavailable)
        #expect(driver.saves == 0)
        #expect(driver.timers.count == 1, "the confirmation already pending is not scheduled twice")
    }

    @Test func aFailedSaveTellsEveryWriterAndLeavesTheContextAsItWas() {
        var driver = ReconcilerDriver(Self.two)
        driver.beforeSave = { _ in .system(path: "books.txt", operation: "fsync", errno: 5) }
        driver.write([("w", .delete(ids: ["1"], expectedVersions: nil))])
        #expect(errorCode(driver.replies[0].1) == .storeUnavailable)
        #expect(driver.machine.context.bookCount == 2)
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.logs.contains { $0.0 == .error })
    }

    @Test func drainRunsADeferredComparisonThenTheQueuedWrites() {
        var driver = ReconcilerDriver(Self.two)
        driver.event()  // deferred
        driver.file = Array("1|Dune|Herbert\n2|Emma|Austin\n".utf8)  // same identity
        driver.run(
            .drain([
                PendingWrite(
                    requestID: "w", connection: ReplyTarget(.socket, 1),
                    operation: .delete(ids: ["1"], expectedVersions: nil))
            ]))
        #expect(driver.broadcasts.map(\.source) == [.file, .client])
        #expect(driver.text == "2|Emma|Austin\n")
    }

    @Test func subscribeStartsWithASnapshotOrTheMissedChanges() {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("w", insert("3", "C"))])
        let peer = ReadEnvironment()
        driver.run(.read(Request(id: "s", op: .subscribe), from: ReplyTarget(.socket, 2), peer))
        #expect(driver.subscriptions.last?.1.map(\.event) == [.snapshot])
        #expect(driver.subscriptions.last?.2 == 1)
        var resume = Request(id: "r", op: .subscribe)
        resume.resume = ResumePoint(epoch: "E", seq: 0)
        driver.run(.read(resume, from: ReplyTarget(.socket, 3), peer))
        #expect(driver.subscriptions.last?.1.map(\.event) == [.change])
        resume.resume = ResumePoint(epoch: "other", seq: 0)
        driver.run(.read(resume, from: ReplyTarget(.socket, 4), peer))
        #expect(driver.subscriptions.last?.1.map(\.event) == [.resyncRequired, .snapshot])
    }
}

extension ReconcilerStateMachineWriteTests {
    @Test func anEditKeptDuringAFailedSwapIsReadAtOnce() {
        var driver = ReconcilerDriver(Self.two)
        driver.beforeSave = { driver in
            driver.edit("1|Dune|Herbert\n2|Emma|Austen\n3|Kept|Editor\n")
            return .concurrentEditKept(path: "books.txt", keptAt: "books.txt.recovered-1")
        }
        driver.write([("w", .update([BookPatch(id: "1", name: "X")]))])
        #expect(errorCode(driver.replies[0].1) == .storeUnavailable)
        #expect(driver.broadcasts.first?.changes.inserted.map(\.id) == ["3"], "the other program's edit is reported")
    }
}
