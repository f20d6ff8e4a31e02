import BooksCore
import BooksProtocol
import Glibc
import Testing

@testable import BooksMachines

/// A merged save's change set is announced only once the merged content is in the file (the
/// answer to its write is in), as every other write booksd makes: a subscriber that reads the
/// file on the announcement finds what it was told, the others' writes included.
@Suite struct ReconcilerMergedWriteOrderTests {
    /// vim's swap file names the base: the change set is broadcast after the merged write.
    @Test func aMergedSaveIsAnnouncedOnlyOnceTheFileHoldsIt() throws {
        let driver = ReconcilerStaleSaveTests.staleSave(
            locks: { [ReconcilerStaleSaveTests.swap(of: $0)] },
            saved: "1|Dune|Herbert\n2|Emma|AUSTEN\n3|Ulysses|Joyce\n")
        let merged = "1|Dune Messiah|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n"
        #expect(driver.text == merged)
        #expect(driver.broadcasts.last?.mergedBase == 0)
        let seen = try #require(driver.filesAtBroadcasts.last)
        #expect(seen.map { String(decoding: $0, as: UTF8.self) } == merged, "the file when the change was announced")
    }

    /// A file renamed over the book file, made before a client's write (the birth-time merge,
    /// applied at once): the same.
    @Test func aMergedRenameIsAnnouncedOnlyOnceTheFileHoldsIt() throws {
        let driver = Self.renamedOverAfterAClientWrite()
        let merged = "1|Dune|Herbert\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n"
        #expect(driver.text == merged && driver.broadcasts.last?.mergedBase == 0)
        #expect(driver.filesAtBroadcasts.last??.elementsEqual(merged.utf8) == true)
        #expect(driver.filesAtBroadcasts.allSatisfy { $0 != nil })
    }

    /// Every change set broadcast matches the file at that moment, and a conflict's event still
    /// follows the merged change.
    @Test func aConflictIsAnnouncedAfterTheMergedChangeOnceWritten() throws {
        var driver = ReconcilerDriver(ReconcilerStaleSaveTests.two)
        let lock = ReconcilerStaleSaveTests.swap(of: driver)
        driver.write([
            ("u", .update([BookPatch(id: "2", name: "Persuasion")])),
            ("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")])),
        ])
        driver.locks = [lock]
        driver.edit("1|Dune|Herbert\n2|Sense and Sensibility|Austen\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|Herbert\n2|Sense and Sensibility|Austen\n4|Middlemarch|Eliot\n")
        #expect(driver.machine.conflicts.count == 1)
        #expect(driver.announced.map(\.afterBroadcasts) == [driver.broadcasts.count])
        #expect(driver.filesAtBroadcasts.last ?? nil == driver.file)
    }

    /// The merged write refused for a newer save from the same stale buffer: the merged change
    /// set still comes first, in seq order, then the newer save's (merged again).
    @Test func aMergedWriteRefusedForANewerEditIsAnnouncedBeforeIt() throws {
        var driver = ReconcilerDriver(ReconcilerStaleSaveTests.two)
        let lock = ReconcilerStaleSaveTests.swap(of: driver)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        let seen = driver.broadcasts.count
        driver.locks = [lock]
        driver.beforeMergedWrite = { driver in
            driver.beforeMergedWrite = nil
            driver.edit("1|Dune|HERBERT\n2|Emma|AUSTEN\n")
            return .changedDuringWrite(path: "books.txt")
        }
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        driver.settle()
        #expect(driver.text == "1|Dune|HERBERT\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        let seqs = driver.broadcasts.map(\.seq)
        #expect(seqs == Array(seqs.indices.map { UInt64($0 + 1) }), "gapless, in order")
        #expect(
            driver.broadcasts.dropFirst(seen).map { $0.changes.updated.map(\.new.author) } == [["AUSTEN"], ["HERBERT"]])
        #expect(driver.filesAtBroadcasts.last ?? nil == driver.file)
    }

    /// A program that wrote to the save's file in the instant the merged content replaced it
    /// (Dune's author changed): its edit is applied on top, written, then announced.
    @Test func anEditLandingAsTheMergedSaveReplacesTheFileIsAppliedOnTop() throws {
        let driver = Self.renamedOverAfterAClientWrite(lateEdit: "1|Dune|HERBERT\n2|Emma|AUSTEN\n")
        #expect(driver.text == "1|Dune|HERBERT\n2|Emma|AUSTEN\n4|Middlemarch|Eliot\n")
        #expect(driver.machine.context.document.bytes == driver.file)
        let last = try #require(driver.broadcasts.last)
        #expect(last.source == .file && last.mergedBase == nil)
        #expect(last.changes.updated.map(\.new.author) == ["HERBERT"] && last.changes.deleted.isEmpty)
        #expect(driver.broadcasts.dropLast().last?.mergedBase == 0, "the merged change set first")
        #expect(driver.filesAtBroadcasts.last ?? nil == driver.file)
    }

    /// A file made before a client's insert, with Emma's author changed, renamed over the file
    /// after it (merged at once); `lateEdit`: what a program wrote to the save's file as the
    /// merged content replaced it.
    static func renamedOverAfterAClientWrite(lateEdit: String? = nil) -> ReconcilerDriver {
        var driver = ReconcilerDriver(ReconcilerStaleSaveTests.two)
        driver.write([("i", .insert([BookDraft(id: "4", name: "Middlemarch", author: "Eliot")]))])
        driver.inode = 8
        driver.born = timespec(tv_sec: driver.fileVersion - 1, tv_nsec: 500_000_000)
        driver.lateEditOfMergedWrite = lateEdit.map { Array($0.utf8) }
        driver.edit("1|Dune|Herbert\n2|Emma|AUSTEN\n")
        driver.event()
        return driver
    }
}
