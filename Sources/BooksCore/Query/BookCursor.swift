/// The books of one state of a `BookContext`, read a few at a time: the source of paged
/// snapshots and lists.
///
/// Guarantees:
/// - It reads an immutable copy of the state it was made from: later changes to the context do
///   not show (the file's bytes and line table are shared copy-on-write; a change to the context
///   while a cursor is alive copies what it changes once).
/// - Unsorted queries are not materialised: books are decoded from the file's bytes as they are
///   read, so a cursor over all books costs a few machine words beyond the shared buffers.
///   A sorted query materialises its matching books once (sorting needs them all).
/// - `next` yields books in the query's order (file order, then held books by id, without a
///   sort), skipping `offset` matches and stopping after `limit`; `total` counts every match.
public struct BookCursor: Sendable {
    private enum Source: Sendable {
        case file(bytes: [UInt8], lines: [LineRecord], held: [Book], filter: BookFilter)
        case sorted([Book])
    }

    private let source: Source
    private var line = 0
    private var heldIndex = 0
    private var toSkip: Int
    private var remaining: Int?
    /// How many books match the query before `offset` and `limit`.
    public let total: Int
    /// True once every book was read (`next` then yields nothing).
    public private(set) var isExhausted = false

    /// A cursor over the books of `context` that match `query`. Counts the matches now (one pass
    /// over the file without decoding a book when the filter is empty).
    public init(context: BookContext, query: BookQuery) {
        toSkip = max(query.offset, 0)
        remaining = query.limit.map { max($0, 0) }
        let held = context.held.values.sorted { $0.id < $1.id }
        if query.sort != nil {
            let sorted = context.query(BookQuery(filter: query.filter, sort: query.sort)).books
            source = .sorted(sorted)
            total = sorted.count
        } else {
            source = .file(
                bytes: context.document.bytes, lines: context.document.lines, held: held, filter: query.filter)
            if query.filter.isEmpty {
                total = context.bookCount
            } else {
                var count = 0
                context.document.forEachBook { if query.filter.matches($0) { count += 1 } }
                total = count + held.count(where: query.filter.matches)
            }
        }
    }

    /// A cursor over every book of `context` that `filter` matches, in file order (a snapshot).
    /// `total` is not counted (0).
    public init(context: BookContext, filter: BookFilter) {
        toSkip = 0
        remaining = nil
        total = 0
        source = .file(
            bytes: context.document.bytes, lines: context.document.lines,
            held: context.held.values.sorted { $0.id < $1.id }, filter: filter)
    }

    /// Calls `body` with the next books in order until it returns false or the books run out
    /// (then `isExhausted` is true). The book for which `body` returned false counts as read.
    public mutating func next(_ body: (Book) -> Bool) {
        guard !isExhausted else { return }
        if remaining == 0 {
            isExhausted = true
            return
        }
        switch source {
        case .sorted(let books):
            while line < books.count {
                let book = books[line]
                line += 1
                if !offer(book, body) { return }
            }
        case .file(let bytes, let lines, let held, let filter):
            let stopped: Bool = bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                while line < lines.count {
                    let record = lines[line]
                    line += 1
                    guard record.kind == .book else { continue }
                    let book = BookDocument.decodeBook(record, base)
                    guard filter.isEmpty || filter.matches(book) else { continue }
                    if !offer(book, body) { return true }
                }
                return false
            }
            if stopped { return }
            while heldIndex < held.count {
                let book = held[heldIndex]
                heldIndex += 1
                guard filter.matches(book) else { continue }
                if !offer(book, body) { return }
            }
        }
        isExhausted = true
    }

    /// Applies offset and limit to one matching book; returns whether to go on.
    private mutating func offer(_ book: Book, _ body: (Book) -> Bool) -> Bool {
        if toSkip > 0 {
            toSkip -= 1
            return true
        }
        if let left = remaining {
            remaining = left - 1
            if left - 1 == 0 {
                _ = body(book)
                isExhausted = true
                return false
            }
        }
        return body(book)
    }
}
