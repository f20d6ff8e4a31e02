import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// The `save` operation on the pure core: all or nothing, one save and one change set, the
/// remap, every conflict reported, hand edits kept (see `ReconcilerDriver`).
@Suite struct ReconcilerStateMachineSaveTests {
    static let five = ReconcilerStateMachineTests.five

    /// A `save` operation built from a request, with permanent ids `P1`, `P2`, …
    static func save(
        inserted: [(String, String)] = [], updated: [BookPatch] = [], deleted: [BookDeletion] = []
    ) throws -> WriteOperation {
        var n = 0
        let request = Request(
            id: "s", op: .save,
            inserted: inserted.isEmpty
                ? nil : inserted.map { BookInsertion(tempId: $0.0, name: $0.1, author: "New") },
            updated: updated.isEmpty ? nil : updated, deleted: deleted.isEmpty ? nil : deleted)
        return try WriteOperation(request: request) {
            n += 1
            return "P\(n)"
        }
    }

    @Test func aMixedSaveIsOneSaveOneChangeSetAndRepliesWithTheRemap() throws {
        var driver = ReconcilerDriver(Self.five)
        let operation = try Self.save(
            inserted: [("t1", "Emma"), ("t2", "Middlemarch")],
            updated: [BookPatch(id: "1", name: "Dune Messiah", expectedVersion: 0)],
            deleted: [BookDeletion(id: "3", expectedVersion: 0), BookDeletion(id: "5")])
        driver.write([("w", operation)])
        #expect(driver.saves == 1)
        #expect(driver.broadcasts.count == 1)
        let change = try #require(driver.broadcasts.first)
        #expect(change.source == .client)
        #expect(change.changes.inserted.map(\.id) == ["P1", "P2"])
        #expect(change.changes.updated.map(\.new.name) == ["Dune Messiah"])
        #expect(change.changes.deleted.map(\.id) == ["3", "5"])
        let reply = try #require(driver.replies.first?.1)
        #expect(reply.ok)
        #expect(reply.result?.remap == ["t1": "P1", "t2": "P2"])
        #expect(reply.result?.books?.map(\.id) == ["P1", "P2", "1"])
        #expect(reply.result?.versions == [change.seq, change.seq, change.seq])
        #expect(
            driver.text
                == "1|Dune Messiah|Herbert\n2|Emma|Austen\n4|Beloved|Morrison\nP1|Emma|New\nP2|Middlemarch|New\n")
    }

    @Test func aSaveThatOnlyInsertsIntoAnUntouchedFileIsAppendedWithoutARead() throws {
        var driver = ReconcilerDriver(Self.five)
        let reads = driver.fileReads
        driver.write([("s", try Self.save(inserted: [("t1", "Emma"), ("t2", "Walden")]))])
        #expect(driver.fileReads == reads, "the file kept its identity: no re-read before the append")
        #expect(driver.replies.first?.1.result?.remap == ["t1": "P1", "t2": "P2"])
        #expect(driver.text == Self.five + "P1|Emma|New\nP2|Walden|New\n")
        driver.write([("u", try Self.save(inserted: [("t", "X")], deleted: [BookDeletion(id: "1")]))])
        #expect(driver.fileReads == reads + 1, "a save that also deletes reads the file first")
    }

    @Test func aReplicasUpdateOfAnUntouchedFileIsWrittenWithoutARead() throws {
        var driver = ReconcilerDriver(Self.five)
        let reads = driver.fileReads
        driver.write([("r1", .update([BookPatch(id: "2", name: "Persuasion")]))], withoutRead: true)
        #expect(driver.fileReads == reads, "the file kept its identity: no re-read before the rewrite")
        #expect(driver.replies.last?.1.ok == true)
        let updated = "1|Dune|Herbert\n2|Persuasion|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n5|Walden|Thoreau\n"
        #expect(driver.text == updated)
        // A hand edit since: the identity moved, so the file is read first and the edit kept.
        driver.edit(updated + "9|Typed|Here\n")
        driver.write([("r2", .delete(ids: ["4"], expectedVersions: nil))], withoutRead: true)
        #expect(driver.fileReads == reads + 1, "a file whose identity moved is read before the write")
        #expect(driver.text == "1|Dune|Herbert\n2|Persuasion|Austen\n3|Ulysses|Joyce\n5|Walden|Thoreau\n9|Typed|Here\n")
        // A client's update still reads the file first.
        driver.write([("c", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        #expect(driver.fileReads == reads + 2, "a client update reads the file first")
    }

    @Test func aStaleSaveReportsEveryConflictAndWritesNothing() throws {
        var driver = ReconcilerDriver(Self.five)
        driver.write([("u", .update([BookPatch(id: "2", name: "Persuasion")]))])
        let seq = try #require(driver.broadcasts.last?.seq)
        driver.edit("1|Dune|Herbert\n2|Persuasion|Austen\n3|Ulysses|Joyce\n5|Walden|Thoreau\n")
        let text = driver.text
        let broadcasts = driver.broadcasts.count
        driver.write([
            (
                "s",
                try Self.save(
                    inserted: [("t1", "Emma")],
                    updated: [
                        BookPatch(id: "1", name: "Ok", expectedVersion: 0),
                        BookPatch(id: "2", name: "Mine", expectedVersion: 0),
                    ],
                    deleted: [BookDeletion(id: "4", expectedVersion: 0)])
            )
        ])
        let reply = try #require(driver.replies.last?.1)
        #expect(reply.error?.code == .conflict)
        let conflicts = try #require(reply.error?.conflicts)
        #expect(conflicts.map(\.id) == ["2", "4"])
        #expect(conflicts[0].current == Book(id: "2", name: "Persuasion", author: "Austen"))
        #expect(conflicts[0].currentVersion == seq)
        #expect(conflicts[1].current == nil, "deleted by hand: no current value")
        #expect(driver.text == text, "nothing of the save was written")
        #expect(driver.broadcasts.count == broadcasts + 1, "only the hand edit was reported")
        #expect(driver.broadcasts.last?.source == .file)
    }

    @Test func aHandEditDuringTheSaveIsKeptAndTheSaveIsRetriedOnTopOfIt() throws {
        var driver = ReconcilerDriver(Self.five)
        var raced = false
        driver.beforeSave = { driver in
            guard !raced else { return nil }
            raced = true
            driver.edit("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n5|Walden Pond|Thoreau\n")
            return .changedDuringWrite(path: "books.txt")
        }
        driver.write([("s", try Self.save(inserted: [("t", "Emma")], updated: [BookPatch(id: "1", name: "X")]))])
        #expect(driver.replies.isEmpty)
        let fired = driver.fireRetry()
        #expect(fired)
        let reply = try #require(driver.replies.first?.1)
        #expect(reply.ok)
        #expect(driver.text?.contains("5|Walden Pond|Thoreau\n") == true, "the hand edit is kept")
        #expect(driver.text?.contains("1|X|Herbert\n") == true)
        #expect(driver.text?.contains("P1|Emma|New\n") == true)
        #expect(driver.broadcasts.map(\.source) == [.file, .client])
    }

    @Test func aSaveGroupedWithOtherWritesIsStillAppliedWhole() throws {
        var driver = ReconcilerDriver(Self.five)
        driver.write([
            ("a", .insert([BookDraft(id: "9", name: "Other", author: "B")])),
            ("s", try Self.save(inserted: [("t", "Emma")], deleted: [BookDeletion(id: "2")])),
            ("c", .update([BookPatch(id: "2", name: "Too late")])),
        ])
        #expect(driver.replies.map { $0.1.id } == ["a", "s", "c"])
        #expect(driver.replies[0].1.ok && driver.replies[1].1.ok)
        #expect(driver.replies[2].1.error?.code == .notFound, "deferred after the save, which deleted the book")
        #expect(driver.text?.contains("2|Emma") == false)
    }

    @Test func malformedSavesAreClearErrors() {
        let cases: [(Request, ProtocolError.ErrorCode, String)] = [
            (Request(id: "1", op: .save), .invalidArgument, "at least one book"),
            (
                Request(
                    id: "2", op: .save,
                    inserted: [
                        BookInsertion(tempId: "t", name: "a", author: "b"), .init(tempId: "t", name: "c", author: "d"),
                    ]),
                .invalidArgument, "tempId t appears twice"
            ),
            (
                Request(id: "3", op: .save, updated: [BookPatch(id: "1", name: "x")], deleted: [BookDeletion(id: "1")]),
                .invalidArgument, "book 1 appears twice"
            ),
            (
                Request(id: "4", op: .save, inserted: [BookInsertion(tempId: "", name: "a", author: "b")]),
                .invalidArgument, "tempId must have"
            ),
            (
                Request(
                    id: "5", op: .save,
                    deleted: (0...SaveLimits.maxChanges).map { BookDeletion(id: "\($0)") }),
                .invalidArgument, "at most 10000 books"
            ),
        ]
        for (request, code, text) in cases {
            do {
                _ = try WriteOperation(request: request)
                Issue.record("request \(request.id) was accepted")
            } catch {
                #expect(error.code == code, "\(request.id)")
                #expect(error.message.contains(text), "\(request.id): \(error.message)")
            }
        }
    }
}
