import BooksCore

extension NATSPayload {
    /// A change set's stream messages, each at most `limit` bytes.
    ///
    /// Guarantees: one message (the plain `change` line, as `change(_:store:)`) when it fits;
    /// otherwise several, each a `change` line of the same epoch and seq holding a consecutive
    /// slice of the books (inserted, then updated, then deleted, in order), marked
    /// `"part":k,"parts":n` right after `"store"`; concatenating the parts' `inserted`, `updated`
    /// and `deleted` in part order gives the change set's back. Nil when one book alone does not
    /// fit in `limit` (the change set cannot be published). Pure.
    package static func changeMessages(_ change: SequencedChangeSet, store: String, limit: Int) -> [[UInt8]]? {
        let whole = NATSPayload.change(change, store: store)
        if whole.count <= limit { return [whole] }
        let marking = 32  // `"part":N,"parts":N,` with room for large numbers
        guard let slices = slices(of: change, store: store, limit: limit - marking) else { return nil }
        return slices.enumerated().map { index, slice in
            let line = NATSPayload.change(slice, store: store)
            return marked(line, store: store, part: index + 1, of: slices.count)
        }
    }

    /// `change` cut into consecutive slices whose `change` line is at most `limit` bytes: filled
    /// by an estimate of each book's size, then halved where the estimate was short.
    private static func slices(of change: SequencedChangeSet, store: String, limit: Int) -> [SequencedChangeSet]? {
        let items = ChangeItems(change.changes)
        let overhead = 256 + store.utf8.count + change.epoch.utf8.count  // the line without books
        var ranges: [Range<Int>] = []
        var start = 0
        var size = overhead
        for index in 0..<items.count {
            let item = items.estimate(index)
            if index > start, size + item > limit {
                ranges.append(start..<index)
                start = index
                size = overhead
            }
            size += item
        }
        if start < items.count { ranges.append(start..<items.count) }
        var result: [SequencedChangeSet] = []
        while let range = ranges.first {
            ranges.removeFirst()
            let slice = change.with(items.changeSet(range))
            if NATSPayload.change(slice, store: store).count <= limit {
                result.append(slice)
            } else if range.count > 1 {
                let middle = range.lowerBound + range.count / 2
                ranges.insert(contentsOf: [range.lowerBound..<middle, middle..<range.upperBound], at: 0)
            } else {
                return nil
            }
        }
        return result
    }

    /// `line` (a message with `"store"` first) with `"part":part,"parts":count` after the store.
    static func marked(_ line: [UInt8], store: String, part: Int, of count: Int) -> [UInt8] {
        var head: [UInt8] = Array("{\"store\":".utf8)
        JSONText.appendString(store, to: &head)
        var out = head
        out += Array(",\"part\":\(part),\"parts\":\(count)".utf8)
        out += line.dropFirst(head.count)
        return out
    }
}

extension NATSPayload {
    /// The `"part":k,"parts":n` marking of a message booksd wrote (right after `"store"`), or nil.
    package static func part(of data: [UInt8]) -> (index: Int, count: Int)? {
        let head = Array("{\"store\":\"".utf8)
        guard data.starts(with: head), let quote = data[head.count...].firstIndex(of: UInt8(ascii: "\"")) else {
            return nil
        }
        var rest = data[(quote + 1)...]
        guard let index = number(after: ",\"part\":", in: &rest), let count = number(after: ",\"parts\":", in: &rest),
            count >= 2, index >= 1, index <= count
        else { return nil }
        return (index, count)
    }

    /// The decimal number after `key` at the start of `bytes` (advanced past it), or nil.
    private static func number(after key: String, in bytes: inout ArraySlice<UInt8>) -> Int? {
        let key = Array(key.utf8)
        guard bytes.starts(with: key) else { return nil }
        bytes = bytes.dropFirst(key.count)
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        bytes = bytes.dropFirst(digits.count)
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

/// A change set's books as one list (inserted, then updated, then deleted), sliced by index.
private struct ChangeItems {
    let changes: ChangeSet
    var count: Int { changes.inserted.count + changes.updated.count + changes.deleted.count }

    init(_ changes: ChangeSet) { self.changes = changes }

    /// About the bytes item `index` takes in a `change` line (JSON escaping may add more).
    func estimate(_ index: Int) -> Int {
        let inserted = changes.inserted.count
        let updated = changes.updated.count
        if index < inserted { return Self.estimate(changes.inserted[index]) }
        if index < inserted + updated {
            let update = changes.updated[index - inserted]
            return Self.estimate(update.old) + Self.estimate(update.new) + 16
        }
        return Self.estimate(changes.deleted[index - inserted - updated])
    }

    private static func estimate(_ book: Book) -> Int {
        book.id.utf8.count + book.name.utf8.count + book.author.utf8.count + 32
    }

    /// The books with indices in `range`.
    func changeSet(_ range: Range<Int>) -> ChangeSet {
        let inserted = changes.inserted.count
        let updated = changes.updated.count
        func slice<T>(_ array: [T], from offset: Int) -> [T] {
            let lower = min(max(range.lowerBound - offset, 0), array.count)
            let upper = min(max(range.upperBound - offset, 0), array.count)
            return Array(array[lower..<upper])
        }
        return ChangeSet(
            inserted: slice(changes.inserted, from: 0), updated: slice(changes.updated, from: inserted),
            deleted: slice(changes.deleted, from: inserted + updated))
    }
}

extension SequencedChangeSet {
    /// The same change set (epoch, seq, source, time) with other books.
    fileprivate func with(_ changes: ChangeSet) -> SequencedChangeSet {
        var copy = self
        copy.changes = changes
        copy.remapped = []
        return copy
    }
}
