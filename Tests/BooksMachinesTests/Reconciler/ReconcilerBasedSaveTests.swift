import BooksCore
import BooksProtocol
import Testing

@testable import BooksCore
@testable import BooksMachines

/// A client `save` that names its base (`booksctl edit`, the Swift client): merged onto what
/// others wrote since like a save from a stale buffer, its conflicts kept, its change set marked
/// merged with the base (see `ReconcilerDriver`).
@Suite struct ReconcilerBasedSaveTests {
    static let five = ReconcilerStateMachineTests.five
    static let alice = ChangeActor(uid: 1000, user: "alice", pid: 42, program: "booksctl")

    /// A `save` with `base`, its insertions given permanent ids `P1`, `P2`, …
    static func save(
        base: ResumePoint, inserted: [(String, String)] = [], updated: [BookPatch] = [], deleted: [String] = []
    ) throws -> WriteOperation {
        var n = 0
        var request = Request(
            id: "s", op: .save,
            inserted: inserted.isEmpty ? nil : inserted.map { BookInsertion(tempId: $0.0, name: $0.1, author: "New") },
            updated: updated.isEmpty ? nil : updated,
            deleted: deleted.isEmpty ? nil : deleted.map { BookDeletion(id: $0) })
        request.base = base
        return try WriteOperation(request: request) {
            n += 1
            return "P\(n)"
        }
    }

    /// The driver's position now (the base a client reading now gets).
    static func position(_ driver: ReconcilerDriver) -> ResumePoint {
        ResumePoint(epoch: driver.machine.context.epoch, seq: driver.machine.context.seq)
    }

    /// Sends `operation` as alice's write.
    static func send(_ operation: WriteOperation, id: String = "s", to driver: inout ReconcilerDriver) {
        driver.run(
            .writesReceived([
                PendingWrite(requestID: id, connection: ReplyTarget(.socket, 2), operation: operation, actor: alice)
            ]))
    }

    @Test func othersChangesAreMergedInTheSaversValueStandsAndTheConflictIsKept() throws {
        var driver = ReconcilerDriver(Self.five)
        let base = Self.position(driver)
        driver.write([
            ("o", .update([BookPatch(id: "1", name: "Dune Messiah"), BookPatch(id: "2", name: "Persuasion")]))
        ])
        driver.write([("o2", .insert([BookDraft(id: "6", name: "Middlemarch", author: "Eliot")]))])
        let broadcasts = driver.broadcasts.count
        // As `booksctl edit` sends it: every field of each edited book, with the versions read.
        let operation = try Self.save(
            base: base, inserted: [("t1", "Emma")],
            updated: [
                BookPatch(id: "1", name: "Dune", author: "F. Herbert", expectedVersion: 0),
                BookPatch(id: "2", name: "Sense and Sensibility", author: "Austen", expectedVersion: 0),
            ],
            deleted: ["3"])
        Self.send(operation, to: &driver)
        #expect(
            driver.text
                == """
                1|Dune Messiah|F. Herbert
                2|Sense and Sensibility|Austen
                4|Beloved|Morrison
                5|Walden|Thoreau
                6|Middlemarch|Eliot
                P1|Emma|New

                """)
        #expect(driver.broadcasts.count == broadcasts + 1, "one change set")
        let change = try #require(driver.broadcasts.last)
        #expect(change.mergedBase == base.seq && change.source == .client && change.actor == Self.alice)
        #expect(change.changes.updated.map(\.new.id) == ["1", "2"] && change.changes.deleted.map(\.id) == ["3"])
        #expect(change.changes.inserted.map(\.id) == ["P1"], "others' insert is not in it")
        let conflict = try #require(driver.machine.conflicts.first)
        #expect(driver.machine.conflicts.count == 1 && driver.storedConflicts == driver.machine.conflicts)
        #expect(conflict.conflict.id == "2" && conflict.conflict.field == "name")
        #expect(conflict.conflict.mineValue == "Sense and Sensibility" && conflict.conflict.theirsValue == "Persuasion")
        #expect(conflict.who == "alice booksctl[42]" && conflict.baseSeq == base.seq && conflict.seq == change.seq)
        let reply = try #require(driver.replies.last?.1)
        #expect(reply.ok && reply.id == "s")
        #expect(reply.result?.merged == ["1"] && reply.result?.conflicts == [conflict])
        #expect(reply.result?.remap == ["t1": "P1"] && reply.result?.books?.map(\.id) == ["P1", "1", "2"])
        #expect(reply.result?.versions == [change.seq, change.seq, change.seq])
        #expect(driver.announced.map(\.event.conflict) == [conflict])
        // Settled like a stale buffer's conflict.
        driver.run(.resolveConflict(conflict.id, take: .theirs, requestID: "r", connection: ReplyTarget(.socket, 1)))
        #expect(driver.text?.hasPrefix("1|Dune Messiah|F. Herbert\n2|Persuasion|Austen\n") == true)
        #expect(driver.machine.conflicts.isEmpty && driver.storedConflicts == [])
    }

    @Test func deleteAgainstChangeKeepsTheChangedBookOnBothSides() throws {
        var driver = ReconcilerDriver(Self.five)
        let base = Self.position(driver)
        driver.write([("o", .update([BookPatch(id: "1", author: "Frank Herbert")]))])
        driver.write([("d", .delete(ids: ["2"], expectedVersions: nil))])
        Self.send(
            try Self.save(base: base, updated: [BookPatch(id: "2", author: "J. Austen")], deleted: ["1"]), to: &driver)
        #expect(driver.replies.last?.1.ok == true)
        #expect(
            driver.text
                == "1|Dune|Frank Herbert\n3|Ulysses|Joyce\n4|Beloved|Morrison\n5|Walden|Thoreau\n2|Emma|J. Austen\n")
        #expect(
            driver.machine.conflicts.map(\.conflict.kind).sorted { $0.rawValue < $1.rawValue } == [
                .deletedByMine, .deletedByTheirs,
            ])
        #expect(driver.replies.last?.1.result?.merged == ["1"])
    }

    @Test func aSaveOnTheCurrentVersionIsAPlainSave() throws {
        var driver = ReconcilerDriver(Self.five)
        driver.write([("o", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        Self.send(
            try Self.save(base: Self.position(driver), updated: [BookPatch(id: "2", name: "Persuasion")]), to: &driver)
        #expect(driver.broadcasts.last?.mergedBase == nil, "nobody wrote since the base: nothing merged")
        #expect(driver.replies.last?.1.result?.merged == [] && driver.replies.last?.1.result?.conflicts == nil)
        #expect(driver.text?.hasPrefix("1|Dune Messiah|Herbert\n2|Persuasion|Austen\n") == true)
    }

    @Test func aBasedSaveIsAChangeSetOfItsOwn() throws {
        var driver = ReconcilerDriver(Self.five)
        let base = Self.position(driver)
        driver.write([("o", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        let broadcasts = driver.broadcasts.count
        driver.run(
            .writesReceived([
                PendingWrite(
                    requestID: "u", connection: ReplyTarget(.socket, 1),
                    operation: .update([BookPatch(id: "4", name: "Jazz")])),
                PendingWrite(
                    requestID: "s", connection: ReplyTarget(.socket, 2),
                    operation: try Self.save(base: base, updated: [BookPatch(id: "1", author: "F. Herbert")])),
            ]))
        driver.settle()
        #expect(driver.broadcasts.count == broadcasts + 2)
        #expect(driver.broadcasts.last?.mergedBase == base.seq && driver.broadcasts.last?.changes.updated.count == 1)
        #expect(
            driver.text?.hasPrefix("1|Dune Messiah|F. Herbert\n") == true && driver.text?.contains("4|Jazz|") == true)
    }

    @Test func aBaseTheHistoryNoLongerReachesIsRefusedAndNothingIsWritten() throws {
        var driver = ReconcilerDriver(Self.five)
        let base = Self.position(driver)
        var configuration = driver.machine.configuration
        configuration.historyMaxBytes = 1  // only the newest change set stays
        driver.machine.reconfigure(configuration)
        driver.write([("o", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        driver.write([("o", .update([BookPatch(id: "2", name: "Persuasion")]))])
        let text = driver.text
        let broadcasts = driver.broadcasts.count
        let edit = [BookPatch(id: "3", name: "Dubliners")]
        for wrong in [
            base, ResumePoint(epoch: "other", seq: 2), ResumePoint(epoch: base.epoch, seq: 99),
        ] {
            Self.send(try Self.save(base: wrong, updated: edit), to: &driver)
            let reply = try #require(driver.replies.last?.1)
            #expect(reply.ok == false && reply.error?.code == .baseNotKept, "\(wrong): \(reply)")
        }
        #expect(driver.text == text && driver.broadcasts.count == broadcasts && driver.machine.conflicts.isEmpty)
        Self.send(try Self.save(base: Self.position(driver), updated: [BookPatch(id: "9", name: "X")]), to: &driver)
        #expect(driver.replies.last?.1.error?.code == .notFound, "a book the base did not have")
        Self.send(try Self.save(base: Self.position(driver), updated: edit), to: &driver)
        #expect(driver.replies.last?.1.ok == true && driver.text?.contains("3|Dubliners|Joyce") == true)
    }
}
