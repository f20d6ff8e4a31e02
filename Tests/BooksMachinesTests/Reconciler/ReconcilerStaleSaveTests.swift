import BooksCore
import BooksProtocol
import Glibc
import Testing

@testable import BooksMachines

/// Saves from a stale editor buffer, on the pure core (see `ReconcilerDriver`): with an editor
/// lock naming the version the buffer came from, the save is merged with what others wrote since.
@Suite struct ReconcilerStaleSaveTests {
    @Test func aStaleSaveWaitsUntilItStandsStill() {
        var driver = ReconcilerDriver(Self.two)
        let lock = Self.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        let seen = driver.broadcasts.count
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n")  // the editor is still writing its save
        driver.event()
        #expect(driver.broadcasts.count == seen, "nothing applied before the save stood still")
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.dropFirst(seen).map(\.changes.updated.count) == [1])
        #expect(driver.broadcasts.dropFirst(seen).allSatisfy { $0.changes.deleted.isEmpty })
    }

    static let two = ReconcilerStateMachineTests.two  // 1|Dune|Herbert, 2|Emma|Austen

    /// A vim swap file naming the driver's file as it is now (inode 7, mtime = its version).
    static func swap(of driver: ReconcilerDriver, pid: UInt32 = 42) -> EditorLock {
        .swap(
            SwapFileHeader(
                program: "VIM 9.0", mtimeSeconds: UInt32(driver.fileVersion), inode: 7, pid: pid, user: "ana",
                host: "desk"))
    }

    /// vim loads the file; a client inserts, updates and deletes; vim saves its buffer with one
    /// row edited. Returns the driver after the save.
    static func staleSave(locks: (ReconcilerDriver) -> [EditorLock], saved: String) -> ReconcilerDriver {
        var driver = ReconcilerDriver("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n")
        let lock = locks(driver)
        driver.write([
            ("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")])),
            ("u", .update([BookPatch(id: "1", name: "Dune Messiah")])),
            ("d", .delete(ids: ["3"], expectedVersions: nil)),
        ])
        #expect(driver.text == "1|Dune Messiah|Herbert\n2|Emma|Austen\n4|Middlemarch|Eliot\n")
        driver.locks = lock
        driver.edit(saved)
        driver.event()
        driver.settle()
        return driver
    }

    @Test func aStaleSaveKeepsTheClientsInsertUpdateAndDelete() throws {
        let driver = Self.staleSave(
            locks: { [Self.swap(of: $0)] }, saved: "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        #expect(driver.text == "1|Dune Messiah|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        let last = try #require(driver.broadcasts.last)
        #expect(last.source == .file && last.mergedBase == 0)
        #expect(
            last.changes
                == ChangeSet(updated: [
                    BookUpdate(
                        old: Book(id: "2", name: "Emma", author: "Austen"),
                        new: Book(id: "2", name: "Emma", author: "AUSTEN"))
                ]))
        #expect(driver.machine.conflicts.isEmpty)
        #expect(driver.machine.context.document.bytes == driver.file)
    }

    /// `sed -i` made its output file before a client's write landed and renamed it over the
    /// file after: the file's birth time is the evidence, and the save is merged at once.
    @Test func aRenameOverMadeBeforeAClientWriteIsMerged() throws {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        let seen = driver.broadcasts.count
        driver.inode = 8
        driver.born = timespec(tv_sec: driver.fileVersion - 1, tv_nsec: 500_000_000)
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        let changes = driver.broadcasts.dropFirst(seen)
        #expect(changes.map(\.changes.updated.count) == [1] && changes.allSatisfy { $0.changes.deleted.isEmpty })
        #expect(changes.last?.mergedBase == 0)
        #expect(driver.machine.context.document.bytes == driver.file)
    }

    /// The same, with the output file made just before even the first version was placed (booksd
    /// had just read a file written a moment before): every version recorded is a candidate base.
    @Test func aRenameOverMadeBeforeEveryVersionIsMerged() throws {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.inode = 8
        driver.born = timespec(tv_sec: driver.fileVersion - 1, tv_nsec: 50_000_000)
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
    }

    /// The same save made after the client's write was in place: the program may have read it
    /// and deleted the book on purpose, so the save stands (and names the write it undid).
    @Test func aRenameOverMadeAfterTheWriteStands() throws {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.inode = 8
        driver.born = timespec(tv_sec: driver.fileVersion, tv_nsec: 500_000_000)
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n")
        let last = try #require(driver.broadcasts.last)
        #expect(last.mergedBase == nil && last.changes.deleted.map(\.id) == ["4"])
    }

    @Test func withoutALockTheSaveStands() throws {
        let saved = "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n"
        let driver = Self.staleSave(locks: { _ in [] }, saved: saved)
        #expect(driver.text == saved)
        let last = try #require(driver.broadcasts.last)
        #expect(last.mergedBase == nil && last.changes.inserted.map(\.id) == ["3"])
        #expect(last.reverts == [1] && driver.machine.recentReverts == [1], "it names the client write it undid")
    }

    /// A replica's own write carries its owner's change set: it is not watched for reverts here
    /// (a first copy would keep every book of the store twice until the next file edit); a
    /// client's write is.
    @Test func aReplicasOwnWriteIsNotWatchedForReverts() throws {
        for transport in [ReplyTarget.Transport.replica, .socket] {
            var driver = ReconcilerDriver("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n")
            driver.write(
                [("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))], transport: transport)
            #expect(driver.text == "1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n4|Middlemarch|Eliot\n")
            #expect(driver.machine.revertDetector.isEmpty == (transport == .replica))
            driver.edit("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n")
            driver.event()
            driver.settle()
            let last = try #require(driver.broadcasts.last)
            #expect(last.changes.deleted.map(\.id) == ["4"])
            #expect((last.reverts == nil) == (transport == .replica), "\(transport)")
        }
    }

    @Test func aLockNamingTheCurrentVersionLetsTheSaveStand() throws {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [Self.swap(of: driver)]  // loaded after the client's write: a deliberate delete
        driver.edit(Self.two)
        driver.event()
        driver.settle()
        #expect(driver.text == Self.two)
        #expect(driver.broadcasts.last?.changes.deleted.map(\.id) == ["4"])
        #expect(driver.broadcasts.last?.mergedBase == nil)
    }

    @Test func aLockNamingAnUnknownVersionLetsTheSaveStand() {
        var driver = ReconcilerDriver(Self.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [
            .swap(SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 999, inode: 7, pid: 1, user: "", host: ""))
        ]
        driver.edit(Self.two)
        driver.event()
        driver.settle()
        #expect(driver.text == Self.two)
    }

    @Test func twoEditorsTheSaversBaseIsTheClosestOne() throws {
        var driver = ReconcilerDriver(Self.two)
        let first = Self.swap(of: driver, pid: 1)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        let second = Self.swap(of: driver, pid: 2)
        driver.write([("u", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        // The second editor (loaded with book 4, before the rename) saves its buffer with 2 edited.
        driver.locks = [first, second]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune Messiah|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.last?.mergedBase == 1)
    }

    @Test func sameFieldConflictTheSaverStandsTheOtherIsKeptAndCanBeTaken() throws {
        var driver = ReconcilerDriver(Self.two)
        let lock = Self.swap(of: driver)
        driver.write([("u", .update([BookPatch(id: "2", name: "Persuasion")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Sense and Sensibility|Austen\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Sense and Sensibility|Austen\n")
        let conflict = try #require(driver.machine.conflicts.first)
        #expect(driver.machine.conflicts.count == 1 && driver.storedConflicts == driver.machine.conflicts)
        #expect(conflict.conflict.field == "name" && conflict.conflict.theirsValue == "Persuasion")
        #expect(conflict.who == "ana@desk pid 42" && conflict.baseSeq == 0)
        driver.locks = []
        let alice = ChangeActor(uid: 1000, user: "alice", pid: 42, program: "booksctl")
        driver.run(
            .resolveConflict(
                conflict.id, take: .theirs, requestID: "r", connection: ReplyTarget(.socket, 1), actor: alice))
        #expect(driver.text == "1|Dune|Herbert\n2|Persuasion|Austen\n")
        #expect(driver.broadcasts.last?.actor == alice && driver.broadcasts.last?.source == .client)
        #expect(driver.machine.conflicts.isEmpty && driver.storedConflicts == [])
        #expect(driver.replies.last?.1.id == "r" && driver.replies.last?.1.ok == true)
    }

    /// A client renamed book 2 while vim had the file open, then vim's save renamed it too: merged,
    /// with one name conflict.
    static func conflicted() throws -> (ReconcilerDriver, RecordedConflict) {
        var driver = ReconcilerDriver(two)
        let lock = swap(of: driver)
        driver.write([("u", .update([BookPatch(id: "2", name: "Persuasion")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Sense and Sensibility|Austen\n")
        driver.event()
        driver.settle()
        return (driver, try #require(driver.machine.conflicts.first))
    }

    @Test func aConflictIsAnnouncedAfterTheMergedChangeAndAgainWhenSettled() throws {
        let (conflicted, conflict) = try Self.conflicted()
        var driver = conflicted
        let recorded = try #require(driver.announced.first, "no conflict event")
        #expect(driver.announced.count == 1)
        #expect(
            recorded.event.event == .conflict && recorded.event.conflict == conflict && recorded.event.resolved == nil)
        #expect(
            recorded.event.seq == driver.broadcasts.last?.seq && recorded.afterBroadcasts == driver.broadcasts.count)
        driver.locks = []
        driver.run(.resolveConflict(conflict.id, take: .theirs, requestID: "r", connection: ReplyTarget(.socket, 1)))
        let settled = try #require(driver.announced.last)
        #expect(driver.announced.count == 2)
        #expect(settled.event.conflict == conflict && settled.event.resolved == .theirs)
        #expect(settled.event.seq == driver.broadcasts.last?.seq, "at the settling write's seq")
    }

    @Test func settlingByTakingMineIsAnnouncedWithoutAWrite() throws {
        let (conflicted, conflict) = try Self.conflicted()
        var driver = conflicted
        driver.locks = []
        let broadcasts = driver.broadcasts.count
        driver.run(.resolveConflict(conflict.id, take: .mine, requestID: "r", connection: ReplyTarget(.socket, 1)))
        #expect(driver.broadcasts.count == broadcasts)
        #expect(driver.announced.map(\.event.resolved) == [nil, .mine])
    }

    @Test func aConflictWhoseTheirsWriteFailsIsKept() throws {
        let (conflicted, conflict) = try Self.conflicted()
        var driver = conflicted
        driver.locks = []
        driver.beforeSave = { _ in .system(path: "books.txt", operation: "fsync", errno: 5) }
        driver.run(.resolveConflict(conflict.id, take: .theirs, requestID: "r", connection: ReplyTarget(.socket, 1)))
        #expect(driver.replies.last?.1.id == "r" && driver.replies.last?.1.ok == false)
        #expect(driver.machine.conflicts == [conflict] && driver.storedConflicts == [conflict])
        #expect(driver.announced.count == 1, "a failed settlement is not announced")
        driver.beforeSave = nil
        driver.run(.resolveConflict(conflict.id, take: .theirs, requestID: "r2", connection: ReplyTarget(.socket, 1)))
        #expect(driver.replies.last?.1.id == "r2" && driver.replies.last?.1.ok == true)
        #expect(driver.text == "1|Dune|Herbert\n2|Persuasion|Austen\n")
        #expect(driver.machine.conflicts.isEmpty && driver.storedConflicts == [])
    }

    @Test func resolvingAnUnknownConflictIsNotFound() {
        var driver = ReconcilerDriver(Self.two)
        driver.run(.resolveConflict(9, take: .mine, requestID: "r", connection: ReplyTarget(.socket, 1)))
        #expect(driver.replies.last?.1.error?.code == .notFound)
    }

    @Test func aNewerEditDuringTheMergedWriteIsMergedAgain() throws {
        var driver = ReconcilerDriver(Self.two)
        let lock = Self.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [lock]
        driver.beforeMergedWrite = { driver in
            driver.beforeMergedWrite = nil
            driver.edit("1|Dune|HERBERT\n2|Emma|AUSTEN\n")  // the user saved again, still stale
            return .changedDuringWrite(path: "books.txt")
        }
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|HERBERT\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.machine.context.document.bytes == driver.file)
        #expect(driver.broadcasts.allSatisfy { $0.changes.deleted.isEmpty })
    }

    @Test func theMergedVersionIsABaseToo() throws {
        // After a merge the editor's buffer holds its own save (without the client's book); a
        // second save from it must not undo the client's book either.
        var driver = ReconcilerDriver(Self.two)
        let lock = Self.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        let savedVersion = driver.fileVersion
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        // vim wrote block 0 again: it names the version it saved.
        driver.locks = [
            .swap(
                SwapFileHeader(
                    program: "VIM 9.0", mtimeSeconds: UInt32(savedVersion), inode: 7, pid: 42, user: "ana",
                    host: "desk"))
        ]
        driver.edit("1|Dune|HERBERT\n2|Emma|AUSTEN\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|HERBERT\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.last?.changes.updated.map(\.new.author) == ["HERBERT"])
    }

    @Test func anAppendWithinTheSameSecondIsToldApartByTheContent() throws {
        var driver = ReconcilerDriver(Self.two)
        let lock = Self.swap(of: driver)
        // The append keeps the inode and lands within the same second (vim's block 0 has whole seconds).
        driver.fileVersion -= 1
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        #expect(
            driver.machine.fileVersions.candidates(namedBy: { if case .swap(let h) = lock { h } else { nil } }()!).count
                == 2)
        driver.write([("u", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune Messiah|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.broadcasts.last?.mergedBase == 0)
    }
}
