import BooksCore
import Testing

@testable import BooksMachines

@Suite struct RevertedWriteDetectorTests {
    let a = Book(id: "a", name: "A", author: "x")
    let b = Book(id: "b", name: "B", author: "y")

    @Test func aStaleSaveThatDropsAnInsertIsUndone() {
        var guardRule = RevertedWriteDetector()
        guardRule.record(ChangeSet(inserted: [a]))
        let request = guardRule.reverted(
            by: ChangeSet(
                updated: [BookUpdate(old: b, new: Book(id: "b", name: "B2", author: "y"))],
                deleted: [a]))
        #expect(request?.inserted.map(\.id) == ["a"])
        #expect(request?.updated.isEmpty == true)
    }

    @Test func revertedUpdatesAndDeletesAreUndone() {
        var guardRule = RevertedWriteDetector()
        let newA = Book(id: "a", name: "A!", author: "x")
        guardRule.record(ChangeSet(updated: [BookUpdate(old: a, new: newA)], deleted: [b]))
        let request = guardRule.reverted(by: ChangeSet(inserted: [b], updated: [BookUpdate(old: newA, new: a)]))
        #expect(request?.updated == [newA])
        #expect(request?.deleted == ["b"])
    }

    @Test func aDeliberateDifferentEditEndsTheProtection() {
        var guardRule = RevertedWriteDetector()
        let newA = Book(id: "a", name: "A!", author: "x")
        guardRule.record(ChangeSet(updated: [BookUpdate(old: a, new: newA)]))
        #expect(
            guardRule.reverted(
                by: ChangeSet(updated: [BookUpdate(old: newA, new: Book(id: "a", name: "Other", author: "x"))])) == nil)
        // Protection ended: a later revert is a deliberate edit.
        #expect(guardRule.reverted(by: ChangeSet(updated: [BookUpdate(old: newA, new: a)])) == nil)
    }

    @Test func protectionExpires() {
        var guardRule = RevertedWriteDetector(window: .seconds(10))
        let now = ContinuousClock.now
        guardRule.record(ChangeSet(inserted: [a]), now: now)
        #expect(guardRule.reverted(by: ChangeSet(deleted: [a]), now: now + .seconds(11)) == nil)
    }
}
