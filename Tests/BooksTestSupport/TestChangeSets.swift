import BooksCore
import FoundationEssentials

/// Change sets for tests.
public enum TestChangeSets {
    /// A change set of `count` books at `seq` (epoch `E`): the first half inserted, the next
    /// quarter updated (their names get ` 2`), the last quarter deleted; names hold quotes.
    public static func bulk(_ count: Int, seq: UInt64 = 7) -> SequencedChangeSet {
        let books = (0..<count).map { Book(id: "id-\($0)", name: "Name \($0) \"quoted\"", author: "Author \($0)") }
        return SequencedChangeSet(
            epoch: "E", seq: seq, source: .client, time: Date(timeIntervalSince1970: 0),
            changes: ChangeSet(
                inserted: Array(books[0..<(count / 2)]),
                updated: books[(count / 2)..<(count * 3 / 4)].map {
                    BookUpdate(old: $0, new: Book(id: $0.id, name: $0.name + " 2", author: $0.author))
                },
                deleted: Array(books[(count * 3 / 4)...])))
    }
}
