import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// The reconciler's decisions, replayed from the edit methods of `docs/EVENTS.md` with the
/// driver's in-memory file: no file, thread, sleep or clock.
@Suite struct ReconcilerStateMachineTests {
    static let two = "1|Dune|Herbert\n2|Emma|Austen\n"
    static let five = "1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n5|Walden|Thoreau\n"

    func update(_ id: String, _ name: String, from old: (String, String), to new: String) -> BookUpdate {
        BookUpdate(old: Book(id: id, name: name, author: old.1), new: Book(id: id, name: name, author: new))
    }

    @Test func theLoadedFileIsTheBaselineNotAChange() {
        let driver = ReconcilerDriver(Self.two)
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.machine.context.seq == 0)
        #expect(driver.machine.context.bookCount == 2)
        #expect(driver.machine.fileState == .present)
        #expect(driver.logs.contains { $0.1 == "loaded 2 books, 0 bad lines" })
    }

    @Test(arguments: ["in place (vim bkc=yes, nano, ed, printf >, cp)", "rename over (sed -i, perl -pi, rsync, mv)"])
    func anEditIsOneChangeSet(method: String) {
        var driver = ReconcilerDriver(Self.two)
        driver.edit("1|Dune|Frank Herbert\n2|Emma|Austen\n")
        driver.event()
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts[0].seq == 1)
        #expect(driver.broadcasts[0].source == .file)
        #expect(
            driver.broadcasts[0].changes
                == ChangeSet(updated: [update("1", "Dune", from: ("Dune", "Herbert"), to: "Frank Herbert")]))
        driver.event()  // emacs's second close, touch: nothing new
        #expect(driver.broadcasts.count == 1)
    }

    @Test func vimsRenameSaveIsOneUpdateDespiteTheAbsentWindow() {
        var driver = ReconcilerDriver(Self.five)
        driver.edit(nil)  // MOVED_FROM books.txt → books.txt~
        driver.event(.removed)
        #expect(driver.broadcasts.isEmpty, "an absent file is not believed at once")
        #expect(driver.machine.fileState == .confirming("the file disappeared"))
        driver.edit("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|James Joyce\n4|Beloved|Morrison\n5|Walden|Thoreau\n")
        driver.event(.created)
        driver.event(.contentMayHaveChanged)
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.changes.updated.map(\.new.author) == ["James Joyce"])
        #expect(driver.fireConfirmation() == true)  // the stale confirmation is superseded
        #expect(driver.broadcasts.count == 1)
        #expect(driver.machine.fileState == .present)
    }

    @Test func truncateThenWriteReportsOnlyTheNetChange() {
        var driver = ReconcilerDriver(Self.five)
        driver.edit("")
        driver.event()
        #expect(driver.broadcasts.isEmpty)
        guard case .confirming = driver.machine.fileState else {
            Issue.record("an emptied file waits for confirmation")
            return
        }
        driver.edit(Self.five + "6|Emma|Austen\n")
        driver.event()
        #expect(driver.broadcasts.count == 1)
        #expect(
            driver.broadcasts.first?.changes == ChangeSet(inserted: [Book(id: "6", name: "Emma", author: "Austen")]))
        #expect(driver.fireConfirmation() == true)
        #expect(driver.broadcasts.count == 1)
    }

    @Test func rmThenRecreateIsNotAMassDelete() {
        var driver = ReconcilerDriver(Self.five)
        driver.edit(nil)
        driver.event(.removed)
        driver.edit(Self.five)
        driver.event(.created)
        driver.event()
        #expect(driver.fireConfirmation() == true)
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.machine.context.bookCount == 5)
    }

    @Test func aRemovalThatStandsStillDeletesEveryBookAfterTheConfirmationDelay() {
        var driver = ReconcilerDriver(Self.five, confirmation: .milliseconds(300))
        driver.edit(nil)
        driver.event(.removed)
        #expect(driver.timers == [.confirmation(generation: 1, after: .milliseconds(300))])
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.fireConfirmation() == true)
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.changes.deleted.count == 5)
        #expect(driver.machine.fileState == .missing)
    }

    @Test func aShrinkThatStandsStillIsBelievedAndOneThatMovesOnIsComparedAgain() {
        var driver = ReconcilerDriver(Self.five)
        driver.edit("1|Dune|Herbert\n")
        driver.event()
        #expect(driver.broadcasts.isEmpty, "a drastic shrink waits")
        driver.edit("1|Dune|Herbert\n2|Emma|Austen\n")  // moved on before the timer: not the state seen
        #expect(driver.fireConfirmation() == true)
        #expect(driver.broadcasts.isEmpty, "a changed state is compared again, not believed")
        #expect(driver.fireConfirmation() == true)  // the new shrink stood still
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.changes.deleted.map(\.id) == ["3", "4", "5"])
    }

    @Test func aSlipOfTheHandHoldsTheBookInsteadOfDeletingIt() {
        var driver = ReconcilerDriver(Self.two)
        driver.edit("1|Dune|Herbert\n2|Emma|Austen|oops\n")
        driver.event()
        #expect(driver.broadcasts.isEmpty, "a malformed row of a known id is held, not deleted")
        #expect(driver.machine.context.held["2"] == Book(id: "2", name: "Emma", author: "Austen"))
        #expect(driver.logs.contains { $0.0 == .warning && $0.1 == "the book file has 1 bad line(s)" })
        driver.edit("1|Dune|Herbert\n2|Emma|J. Austen\n")
        driver.event()
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.changes.updated.map(\.new.author) == ["J. Austen"])
    }

    @Test func touchOnTheLastSeenIdentityDefersTheComparisonWhichStillRuns() {
        var driver = ReconcilerDriver(Self.two)
        let reads = driver.fileReads
        driver.event()  // CLOSE_WRITE without a change
        #expect(driver.fileReads == reads, "an untouched identity is not read at once")
        #expect(driver.timers == [.verification])
        // A writer that kept size and times (same tick): the deferred comparison still sees it.
        driver.file = Array("1|Dune|Herbirt\n2|Emma|Austen\n".utf8)
        #expect(driver.fireVerification(writesWaiting: true) == true)
        #expect(driver.timers == [.verification], "client writes waiting: the comparison waits one more round")
        #expect(driver.fireVerification() == true)
        #expect(driver.fileReads == reads + 1)
        #expect(driver.broadcasts.first?.changes.updated.map(\.new.author) == ["Herbirt"])
    }

    @Test func handTypedRowsGetAnIDWithOneInsertFromTheFile() {
        var driver = ReconcilerDriver("1|A|B\n")
        driver.edit("1|A|B\nEmma|Jane Austen\n")
        driver.event()
        #expect(driver.saves == 1)
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.source == .file)
        #expect(driver.broadcasts.first?.changes.inserted == [Book(id: "n1", name: "Emma", author: "Jane Austen")])
        #expect(driver.broadcasts.first?.remapped == [IdentifierRemap(temporaryID: "line:2", permanentID: "n1")])
        #expect(driver.text == "1|A|B\nn1|Emma|Jane Austen\n")
    }
}
