import BooksCore
import Testing

@testable import BooksProtocol

@Suite struct ChangeSetFilterTests {
    let filter = BookFilter([BookCondition(.author, .equals, "Austen")])
    let a1 = Book(id: "1", name: "Emma", author: "Austen")
    let a2 = Book(id: "2", name: "Persuasion", author: "Austen")
    let h3 = Book(id: "3", name: "Dune", author: "Herbert")

    @Test func insertsAndDeletes() {
        let change = ChangeSet(inserted: [a1, h3], deleted: [a2, h3])
        let view = filtered(change, by: filter)
        #expect(view == ChangeSet(inserted: [a1], deleted: [a2]))
    }

    @Test func updatesEnterLeaveAndStay() {
        let stay = BookUpdate(old: a1, new: Book(id: "1", name: "Emma!", author: "Austen"))
        let leave = BookUpdate(old: a2, new: Book(id: "2", name: "Persuasion", author: "Brontë"))
        let enter = BookUpdate(old: h3, new: Book(id: "3", name: "Dune", author: "Austen"))
        let outside = BookUpdate(old: Book(id: "4", name: "x", author: "y"), new: Book(id: "4", name: "z", author: "y"))
        let newBook = Book(id: "5", name: "Sanditon", author: "Austen")
        let gone = Book(id: "6", name: "Lady Susan", author: "Austen")
        let change = ChangeSet(inserted: [newBook], updated: [stay, leave, enter, outside], deleted: [gone])
        let view = change.filtered(by: filter)
        #expect(view.inserted == [newBook, enter.new])
        #expect(view.updated == [stay])
        #expect(view.deleted == [gone, leave.old])
    }

    @Test func emptyFilterIsIdentityAndNoMatchIsEmpty() {
        let change = ChangeSet(
            inserted: [a1], updated: [BookUpdate(old: h3, new: Book(id: "3", name: "D", author: "H"))], deleted: [a2])
        #expect(change.filtered(by: .all) == change)
        #expect(change.filtered(by: BookFilter([BookCondition(.id, .equals, "none")])).isEmpty)
    }
}
