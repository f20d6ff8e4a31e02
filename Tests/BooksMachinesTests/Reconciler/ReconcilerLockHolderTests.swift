import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// Locks that name no version (nano's `--locking` lock, Emacs' `.#` link) as evidence of a stale
/// save: the version in place when the lock was first seen is the buffer's base; and the file
/// versions kept across a restart.
@Suite struct ReconcilerLockHolderTests {
    static let nano = EditorLock.swap(
        SwapFileHeader(program: "nano 7.2", mtimeSeconds: 0, inode: 0, pid: 77, user: "ana", host: "desk"))
    static let emacs = EditorLock.emacs(EmacsLock(target: "ana@desk.88:1700000000")!)
    static let three = "1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n"

    /// The editor holding `lock` has the file open when a client inserts book 4 (the commit sees
    /// the lock), then saves its buffer with book 2 edited.
    static func saveAfterClientWrite(_ lock: EditorLock) -> ReconcilerDriver {
        var driver = ReconcilerDriver(three)
        driver.locks = [lock]
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        driver.event()
        driver.settle()
        return driver
    }

    @Test(arguments: [nano, emacs])
    func aLockSeenBeforeAClientWriteMakesTheSaveMerged(_ lock: EditorLock) throws {
        let driver = Self.saveAfterClientWrite(lock)
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n4|Middlemarch|Eliot\n")
        let last = try #require(driver.broadcasts.last)
        #expect(last.mergedBase == 0 && last.changes.updated.count == 1 && last.changes.deleted.isEmpty)
    }

    @Test func anEmacsLockGoneAsTheSaveLandsStillNamesItsBase() throws {
        var driver = ReconcilerDriver(Self.three)
        driver.locks = [Self.emacs]
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = []  // Emacs removes its lock as soon as its save is written
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        driver.event()
        driver.event()  // its second open and close of the file: the same content keeps waiting
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.last?.mergedBase == 0)
        // Looked at once more without it, the vanished lock is no evidence any more.
        driver.edit(Self.three)
        driver.event()
        driver.settle()
        #expect(driver.text == Self.three, "a later save with no lock stands")
    }

    @Test func aClientWriteWhileAStaleSaveWaitsToStandStillDoesNotApplyItAsWritten() throws {
        var driver = ReconcilerDriver(Self.three)
        let lock = ReconcilerStaleSaveTests.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        driver.event()  // a stale save: it waits to stand still
        // A client write lands meanwhile: its commit finds the file changed by the save.
        driver.write([("u", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        driver.settle()
        #expect(
            driver.text == "1|Dune Messiah|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n4|Middlemarch|Eliot\n",
            "the first client write survives, the second is written, the save's edit stays")
        #expect(driver.broadcasts.allSatisfy { !$0.changes.deleted.contains { $0.id == "4" } })
        #expect(driver.replies.allSatisfy { $0.1.ok }, "\(driver.replies)")
    }

    @Test func aLockFirstSeenAfterTheClientsWriteLetsTheSaveStand() throws {
        var driver = ReconcilerDriver(Self.three)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [Self.nano]  // opened after the write: its buffer holds book 4; deleting it is deliberate
        driver.edit(Self.three)
        driver.event()
        driver.settle()
        #expect(driver.text == Self.three)
        #expect(driver.broadcasts.last?.mergedBase == nil)
    }

    @Test func theEditorsOwnSaveIsItsNextBase() throws {
        var driver = Self.saveAfterClientWrite(Self.nano)
        // nano (its buffer: its own save, without book 4) changes book 2 back and saves again.
        driver.edit(Self.three)
        driver.event()
        driver.settle()
        #expect(driver.text == Self.three + "4|Middlemarch|Eliot\n", "its revert of its own edit stands, book 4 stays")
    }

    @Test func fileVersionsLoadedAfterARestartNameTheBase() throws {
        var before = ReconcilerDriver(Self.three)
        let lock = ReconcilerStaleSaveTests.swap(of: before)
        before.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        let kept = before.machine.fileVersions.versions
        // A restart: the context continues (saved history), the versions come from the state directory.
        var driver = before
        driver.machine = ReconcilerStateMachine(
            configuration: before.machine.configuration, restoring: before.machine.context)
        driver.run(.fileVersionsLoaded(kept))
        driver.run(.loaded(driver.snapshot()))
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.last?.mergedBase == 0)
    }
}
