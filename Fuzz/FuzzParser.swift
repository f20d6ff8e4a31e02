// libFuzzer target: the books.txt parser and the record-level diff.
// Built by scripts/fuzz.sh together with the BooksCore sources (one module, so internals are visible).
//
// Input layout: byte 0 chooses where the input splits into the OLD and NEW file contents.
// Properties checked (a failure traps, libFuzzer saves the input):
//  - parsing never crashes, whatever the bytes (invalid UTF-8, NULs, CR, escapes, long lines);
//  - the incremental update from OLD to NEW and the full re-parse + diff give identical change
//    sets and identical documents (books, bad lines, counts), and the same books as a fresh parse
//    of NEW (bad lines may differ from a fresh parse by design: a 2-field row whose first field
//    is a known id is that book's damaged row, not a new book);
//  - the document's bytes are exactly the input (nothing of the user's file is lost);
//  - the same edit applied in place as a splice (`update(applying:)`, widened over unchanged
//    bytes by an amount taken from the input, as a chunked reader may report it) gives the same
//    change set, bytes and books.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    let body = Array(input.dropFirst())
    let cut = body.count * Int(first) / 256
    let old = Array(body[..<cut])
    let new = Array(body[cut...])
    let lineLimit = 48  // small, so the too-long path is reached often

    var incremental = BookDocument(parsing: old, lineLimit: lineLimit)
    var full = incremental
    check(incremental.bytes == old, "parse changed the bytes")
    let update = incremental.update(to: new)
    let fullChanges = full.updateFully(to: new)
    let fresh = BookDocument(parsing: new, lineLimit: lineLimit)
    if update.changes != fullChanges {
        // Same records in another order would still be a disagreement the daemon would broadcast.
        fatalError("incremental (\(update.path)) and full diff disagree:\n\(update.changes)\nvs\n\(fullChanges)")
    }
    check(incremental.bytes == new && full.bytes == new, "document bytes differ from the file")
    check(incremental.books == full.books && incremental.books == fresh.books, "books differ after update")
    check(incremental.badLines == full.badLines, "bad lines differ between incremental and full")
    check(
        incremental.bookCount == full.bookCount && incremental.badLineCount == full.badLineCount
            && incremental.newBookCount == full.newBookCount, "counts differ between incremental and full")
    for book in fresh.books {
        check(incremental.book(id: book.id) != nil, "lookup by id failed for \(book.id)")
    }
    // The edit as a splice, widened on both sides, applied in place.
    let minimal = ByteSplice(from: old, to: new)
    let widen = Int(first % 7)
    let lower = max(0, minimal.range.lowerBound - widen)
    let upper = min(old.count, minimal.range.upperBound + widen)
    let splice = ByteSplice(
        range: lower..<upper,
        replacement: Array(old[lower..<minimal.range.lowerBound]) + minimal.replacement
            + Array(old[minimal.range.upperBound..<upper]))
    check(splice.applied(to: old) == new, "the splice does not produce the new content")
    var spliced = BookDocument(parsing: old, lineLimit: lineLimit)
    let splicedChanges = spliced.update(applying: splice).changes
    check(splicedChanges == fullChanges, "splice and full diff disagree:\n\(splicedChanges)\nvs\n\(fullChanges)")
    check(
        spliced.bytes == new && spliced.books == full.books && spliced.badLines == full.badLines,
        "the spliced document differs from the full one")
    // Rendering with no edit reproduces the file byte for byte.
    check(fresh.rendering([]) == new, "rendering([]) is not the identity")
    return 0
}

/// `precondition` that keeps its message in -O builds.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
