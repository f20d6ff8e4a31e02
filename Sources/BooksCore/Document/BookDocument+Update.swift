import Glibc

extension BookDocument {
    /// Moves the document to `newBytes` and returns the record-level changes.
    ///
    /// Only the window of lines between the unchanged common prefix and suffix of the old and new
    /// bytes is parsed (found with `memcmp` at memory speed). When the window could interact with
    /// the rest of the file (a duplicate id, an id moved in from outside the window) or is large,
    /// the whole file is parsed and diffed by id instead; both paths yield identical change sets.
    public mutating func update(to newBytes: [UInt8]) -> DocumentUpdate {
        if ByteComparison.equal(newBytes, bytes) { return DocumentUpdate(changes: ChangeSet(), path: .unchanged) }
        let (prefix, suffix) = ByteComparison.commonEnds(bytes, newBytes)
        let oldRange = prefix..<(bytes.count - suffix)
        let newRange = prefix..<(newBytes.count - suffix)
        if let changes = updateIncrementally(
            prefix: prefix, oldSuffixStart: bytes.count - suffix, content: .whole(newBytes))
        {
            return DocumentUpdate(changes: changes, path: .incremental, oldRange: oldRange, newRange: newRange)
        }
        return DocumentUpdate(
            changes: updateFully(to: newBytes), path: .full, oldRange: oldRange, newRange: newRange)
    }

    /// Moves the document to its bytes changed by `splice` and returns the record-level changes:
    /// the same change set as `update(to: splice.applied(to: bytes))`, but the bytes are changed in
    /// place (no second copy of the file) and only the lines around the splice are parsed.
    public mutating func update(applying splice: ByteSplice) -> DocumentUpdate {
        precondition(
            splice.range.lowerBound >= 0 && splice.range.upperBound <= bytes.count, "splice outside the document")
        // Trim what the splice replaces with the same bytes: the window is then the real change.
        let trimmed =
            bytes.withUnsafeBufferPointer { old in
                splice.replacement.withUnsafeBufferPointer { new -> ByteSplice? in
                    let r = splice.range
                    guard let o = old.baseAddress, let n = new.baseAddress else { return nil }
                    let shorter = min(r.count, new.count)
                    let prefix = ByteComparison.commonPrefix(o + r.lowerBound, n, shorter)
                    let suffix = ByteComparison.commonSuffix(
                        o + r.lowerBound, r.count, n, new.count, limit: shorter - prefix)
                    if prefix == 0 && suffix == 0 { return nil }
                    return ByteSplice(
                        range: (r.lowerBound + prefix)..<(r.upperBound - suffix),
                        replacement: Array(splice.replacement[prefix..<(new.count - suffix)]))
                }
            } ?? splice
        if trimmed.isEmpty { return DocumentUpdate(changes: ChangeSet(), path: .unchanged) }
        if let changes = updateIncrementally(
            prefix: trimmed.range.lowerBound, oldSuffixStart: trimmed.range.upperBound,
            content: .splice(trimmed.replacement))
        {
            return DocumentUpdate(changes: changes, path: .incremental)
        }
        return DocumentUpdate(changes: updateFully(to: trimmed.applied(to: bytes)), path: .full)
    }

    /// Moves the document to `newBytes` by parsing all of it and diffing by id.
    public mutating func updateFully(to newBytes: [UInt8]) -> ChangeSet {
        if ByteComparison.equal(newBytes, bytes) { return ChangeSet() }
        let next = BookDocument(parsing: newBytes, lineLimit: lineLimit, previous: self)
        let changes = Self.diff(from: self, to: next)
        self = next
        return changes
    }

    /// The changes from `old` to `new`, by id: inserts and updates in `new`'s order, deletes in `old`'s.
    public static func diff(from old: BookDocument, to new: BookDocument) -> ChangeSet {
        var changes = ChangeSet()
        old.bytes.withUnsafeBufferPointer { oldBuffer in
            new.bytes.withUnsafeBufferPointer { newBuffer in
                let oldBase = oldBuffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                let newBase = newBuffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                var matched = 0
                let lines = new.lines
                for (n, record) in lines.enumerated() where record.kind == .book {
                    if n + 16 < lines.count, lines[n + 16].kind == .book {
                        let ahead = lines[n + 16]
                        old.index.prefetch(IDIndex.hash(newBase, ahead.start, Int(ahead.separator1)))
                    }
                    let id = UnsafeBufferPointer(start: newBase + record.start, count: Int(record.separator1))
                    if let k = old.lineIndex(ofID: id) {
                        matched += 1
                        let before = old.lines[k]
                        if !sameValues(before, oldBase, record, newBase) {
                            changes.updated.append(
                                BookUpdate(old: decodeBook(before, oldBase), new: decodeBook(record, newBase)))
                        }
                    } else {
                        changes.inserted.append(decodeBook(record, newBase))
                    }
                }
                // Ids are unique among books: when every old book matched, none was deleted.
                guard matched < old.bookCount else { return }
                for record in old.lines where record.kind == .book {
                    let id = UnsafeBufferPointer(start: oldBase + record.start, count: Int(record.separator1))
                    if !new.containsID(bytes: id) { changes.deleted.append(decodeBook(record, oldBase)) }
                }
            }
        }
        return changes
    }

    /// Where the new content of an incremental update comes from.
    enum NewContent {
        /// The whole new content: the document adopts this array.
        case whole([UInt8])
        /// The bytes that replace `prefix..<oldSuffixStart` of the current content, in place.
        case splice([UInt8])
    }

    /// The incremental path for new content that equals the old bytes before `prefix` and from
    /// `oldSuffixStart` on; nil when the full path must be taken (nothing is changed then).
    mutating func updateIncrementally(prefix: Int, oldSuffixStart: Int, content: NewContent) -> ChangeSet? {
        let oldCount = bytes.count
        let replacementCount: Int
        switch content {
        case .whole(let newBytes): replacementCount = newBytes.count - prefix - (oldCount - oldSuffixStart)
        case .splice(let replacement): replacementCount = replacement.count
        }
        let newCount = oldCount - (oldSuffixStart - prefix) + replacementCount
        guard duplicateCount == 0, oldCount > 0, newCount > 0 else { return nil }
        // 1. The changed window, aligned to whole lines: from the start of the line holding the
        // first change to just after a line end inside the common suffix (a line start in both
        // versions), or to the end of the file.
        let (windowStart, oldEnd) = bytes.withUnsafeBufferPointer { oldBuffer -> (Int, Int) in
            let a = oldBuffer.baseAddress!
            var start = prefix
            while start > 0, a[start - 1] != 0x0A { start -= 1 }
            var end = oldSuffixStart
            if end < oldCount {
                if let hit = memchr(a + end, 0x0A, oldCount - end) {
                    end = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - a + 1
                } else {
                    end = oldCount
                }
            }
            return (start, end)
        }
        let delta = newCount - oldCount
        if oldEnd - windowStart > max(oldCount / 4, 64 * 1024) { return nil }

        // 2. The old window's lines [i, j).
        let i = firstLine(atOrAfter: windowStart)
        let j = firstLine(atOrAfter: oldEnd)
        // Whether a `name|author` row is a new book depends on the ids known around it: rows of
        // that kind outside the window could change kind, so let the full path decide (they are
        // rare — the daemon gives them ids at once).
        if newBookCount > 0, newBookCount > lines[i..<j].reduce(0, { $0 + ($1.kind == .newBook ? 1 : 0) }) {
            return nil
        }

        // 3. The new window's bytes (offsets relative to `windowStart`), parsed and classified
        // against the old index.
        var newWindow: [UInt8] = []
        newWindow.reserveCapacity(oldEnd - windowStart + delta)
        newWindow.append(contentsOf: bytes[windowStart..<prefix])
        switch content {
        case .whole(let newBytes): newWindow.append(contentsOf: newBytes[prefix..<(prefix + replacementCount)])
        case .splice(let replacement): newWindow.append(contentsOf: replacement)
        }
        newWindow.append(contentsOf: bytes[oldSuffixStart..<oldEnd])
        var window = Self.parseLines(newWindow, from: 0, to: newWindow.count, lineLimit: lineLimit)
        var counters = Counters()
        var windowIDs = [IDKey: Int]()  // id → index in `window`
        var fallback = false
        var slips: Set<IDKey>?
        newWindow.withUnsafeBufferPointer { newBuffer in
            let b = newBuffer.baseAddress ?? UnsafePointer(bitPattern: 1)!  // no lines when empty
            for m in window.indices {
                let record = window[m]
                switch record.kind {
                case .book:
                    let id = UnsafeBufferPointer(start: b + record.start, count: Int(record.separator1))
                    let key = IDKey(id)
                    if windowIDs[key] != nil {
                        window[m].kind = .badDuplicateID
                        counters.duplicates += 1
                        counters.bad += 1
                    } else if let k = lineIndex(ofID: id), k < i || k >= j {
                        fallback = true
                        return
                    } else {
                        windowIDs[key] = m
                        counters.books += 1
                    }
                case .newBook:
                    let field = UnsafeBufferPointer(start: b + record.start, count: Int(record.separator1))
                    if LineParser.looksLikeUUID(b, start: record.start, end: record.start + field.count)
                        || containsID(bytes: field) || windowIDs[IDKey(field)] != nil
                        || {
                            if slips == nil { slips = slipIDs() }
                            return slips!.contains(IDKey(field))
                        }()
                    {
                        window[m].kind = .badMissingField
                        counters.bad += 1
                    } else {
                        counters.newBooks += 1
                    }
                default:
                    if record.kind.isBad { counters.bad += 1 }
                }
            }
        }
        if fallback { return nil }

        // 4. The change set: old window books against new window books.
        var changes = ChangeSet()
        var oldWindowCounters = Counters()
        bytes.withUnsafeBufferPointer { oldBuffer in
            newWindow.withUnsafeBufferPointer { newBuffer in
                let a = oldBuffer.baseAddress!
                let b = newBuffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                var matched = Set<Int>()
                for k in i..<j {
                    let record = lines[k]
                    switch record.kind {
                    case .book:
                        oldWindowCounters.books += 1
                        let key = IDKey(UnsafeBufferPointer(start: a + record.start, count: Int(record.separator1)))
                        if let m = windowIDs[key] {
                            matched.insert(m)
                            if !Self.sameValues(record, a, window[m], b) {
                                changes.updated.append(
                                    BookUpdate(
                                        old: Self.decodeBook(record, a),
                                        new: Self.decodeBook(window[m], b)))
                            }
                        } else {
                            changes.deleted.append(Self.decodeBook(record, a))
                        }
                    case .newBook: oldWindowCounters.newBooks += 1
                    case .badDuplicateID:
                        oldWindowCounters.bad += 1
                        oldWindowCounters.duplicates += 1
                    default: if record.kind.isBad { oldWindowCounters.bad += 1 }
                    }
                }
                // Updates must follow the new file's order, inserts too: rebuild in window order.
                if !changes.updated.isEmpty || windowIDs.count > matched.count {
                    let updatedByID = Dictionary(
                        changes.updated.map { ($0.new.id, $0) }, uniquingKeysWith: { x, _ in x })
                    changes.updated.removeAll(keepingCapacity: true)
                    for (m, record) in window.enumerated() where record.kind == .book {
                        if matched.contains(m) {
                            let id = Self.decodeField(b, record.start, record.start + Int(record.separator1), false)
                            if let update = updatedByID[id] { changes.updated.append(update) }
                        } else {
                            changes.inserted.append(Self.decodeBook(record, b))
                        }
                    }
                }
                // 5. Remove the old window's ids from the index (needs the old bytes).
                for k in i..<j where lines[k].kind == .book {
                    let record = lines[k]
                    let idLength = Int(record.separator1)
                    let hash = IDIndex.hash(a, record.start, idLength)
                    let snapshot = lines
                    index.remove(hash) { line in
                        let other = snapshot[line]
                        return Int(other.separator1) == idLength
                            && memcmp(a + other.start, a + record.start, idLength) == 0
                    }
                }
            }
        }

        // 6. Splice the lines, shift what follows, re-index the window.
        let lineDelta = window.count - (j - i)
        if j < lines.count { index.shiftLines(from: j, by: lineDelta) }  // none follow an append
        for m in window.indices { window[m].start += windowStart }
        lines.replaceSubrange(i..<j, with: window)
        if delta != 0 {
            lines.withUnsafeMutableBufferPointer { records in
                for k in (i + window.count)..<records.count { records[k].start += delta }
            }
        }
        switch content {
        case .whole(let newBytes): bytes = newBytes
        case .splice(let replacement): bytes.replaceSubrange(prefix..<oldSuffixStart, with: replacement)
        }
        bytes.withUnsafeBufferPointer { buffer in
            let b = buffer.baseAddress!
            for (m, record) in window.enumerated() where record.kind == .book {
                index.insert(IDIndex.hash(b, record.start, Int(record.separator1)), line: i + m)
            }
        }
        bookCount += counters.books - oldWindowCounters.books
        badLineCount += counters.bad - oldWindowCounters.bad
        newBookCount += counters.newBooks - oldWindowCounters.newBooks
        duplicateCount += counters.duplicates - oldWindowCounters.duplicates
        lineEnding = Self.detectLineEnding(lines)
        return changes
    }

    /// The index of the first line starting at or after `offset` (`lines.count` if none).
    func firstLine(atOrAfter offset: Int) -> Int {
        var low = 0
        var high = lines.count
        while low < high {
            let mid = (low + high) / 2
            if lines[mid].start < offset { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
