import BooksCore
import BooksProtocol
import Glibc
import Testing

@testable import BooksMachines

/// Transitions the machine's state enums make explicit (``ReconcilerStateMachine/CommitState``,
/// ``ReconcilerStateMachine/ConfirmationState``), on the pure core (see `ReconcilerDriver`).
@Suite struct ReconcilerStateTransitionTests {
    /// A save from a stale buffer waits to stand still; a read failing with an I/O error meanwhile
    /// supersedes the wait. Once the file reads again with the same save, it waits anew and is
    /// merged: the superseded wait is forgotten, not taken for a live one that no timer would end.
    @Test func aStaleSaveInterruptedByAnIOErrorIsMergedOnceTheFileReadsAgain() {
        var driver = ReconcilerDriver(ReconcilerStaleSaveTests.two)
        let lock = ReconcilerStaleSaveTests.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        #expect(driver.machine.confirmation != nil)
        driver.readError = .system(path: "books.txt", operation: "read", errno: EIO)
        driver.event()
        #expect(driver.machine.confirmation == nil, "the wait is superseded by the failed read")
        driver.settle()  // the superseded timer decides nothing
        driver.readError = nil
        let reread = driver.fireReread()
        #expect(reread)
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.machine.context.book(id: "2")?.author == "AUSTEN")
        #expect(driver.machine.context.book(id: "4") != nil)
    }

    /// The answer to a save or a late-edit write that no commit awaits changes nothing.
    @Test func aSaveAnswerWithNoCommitUnderWayIsIgnored() {
        var machine = ReconcilerStateMachine(configuration: .init(path: "books.txt"), epoch: "E")
        let error = BookFileError.system(path: "books.txt", operation: "rename", errno: EIO)
        let saved = machine.handle(.saveFinished(.failure(.changedDuringWrite(path: "books.txt"))))
        let lateEdit = machine.handle(.lateEditWritten(.failure(error), late: [], merged: []))
        #expect(saved.isEmpty)
        #expect(lateEdit.isEmpty)
        #expect(!machine.commitState.isCommitting)
        #expect(machine.writeRetries == 0)
    }

    /// A refused save puts its writes back in line: no commit is under way, yet the count of
    /// refused saves is kept for their retry, and a success resets it.
    @Test func aRefusedSaveWaitsIdleWithItsRetryCounted() {
        var driver = ReconcilerDriver(ReconcilerStaleSaveTests.two)
        var refusals = 1
        driver.beforeSave = { _ in
            guard refusals > 0 else { return nil }
            refusals -= 1
            return .changedDuringWrite(path: "books.txt")
        }
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        #expect(!driver.machine.commitState.isCommitting)
        #expect(driver.machine.writeRetries == 1)
        #expect(driver.machine.queued.count == 1)
        let retried = driver.fireRetry()
        #expect(retried)
        #expect(driver.machine.writeRetries == 0)
        #expect(driver.machine.queued.isEmpty)
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|Austen\n4|Middlemarch|Eliot\n")
    }
}
