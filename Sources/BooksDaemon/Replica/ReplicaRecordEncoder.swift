import BooksCore

/// Writes a replica's record and its updates as the JSON `JSONDecoder` reads back into the same
/// values (the `Codable` shape: absent optionals left out; a settled entry, whose owner state is
/// its base, as `{"settled":…}`, see `ReplicaEntry`), without building an encoder tree: a
/// first copy's update names every book, and `JSONEncoder` took minutes and gigabytes for a
/// million entries. Pure.
enum ReplicaRecordEncoder {
    /// `{"generation":N,"update":{…}}`.
    static func logLine(generation: UInt64, _ update: ReplicaRecordUpdate) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + update.set.count * 160)
        out.append(contentsOf: "{\"generation\":\(generation),\"update\":".utf8)
        append(update, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The whole record.
    static func record(_ record: ReplicaRecord) -> [UInt8] { Array(recordChunks(record).joined()) }

    /// The whole record in chunks of about `chunkSize` bytes, each made when asked for.
    static func recordChunks(_ record: ReplicaRecord, chunkSize: Int = 1 << 20) -> RecordChunks {
        RecordChunks(record: record, chunkSize: chunkSize)
    }

    /// The chunks of one record's JSON (see `recordChunks`).
    struct RecordChunks: Sequence, IteratorProtocol {
        let record: ReplicaRecord
        let chunkSize: Int
        private var index: [String: ReplicaEntry].Index?
        private var finished = false

        init(record: ReplicaRecord, chunkSize: Int) {
            self.record = record
            self.chunkSize = Swift.max(chunkSize, 1)
        }

        mutating func next() -> [UInt8]? {
            guard !finished else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(chunkSize + 4096)
            let entries = record.entries
            if index == nil {
                out.append(contentsOf: "{\"replicaID\":".utf8)
                JSONText.appendString(record.replicaID, to: &out)
                if let epoch = record.epoch {
                    out.append(contentsOf: ",\"epoch\":".utf8)
                    JSONText.appendString(epoch, to: &out)
                }
                out.append(contentsOf: ",\"seq\":\(record.seq),\"entries\":{".utf8)
                index = entries.startIndex
            }
            guard var position = index else { return nil }
            while position != entries.endIndex, out.count < chunkSize {
                if position != entries.startIndex { out.append(UInt8(ascii: ",")) }
                let (id, entry) = entries[position]
                JSONText.appendString(id, to: &out)
                out.append(UInt8(ascii: ":"))
                ReplicaRecordEncoder.append(entry, to: &out)
                position = entries.index(after: position)
            }
            index = position
            if position == entries.endIndex {
                out.append(UInt8(ascii: "}"))
                if let generation = record.generation { out.append(contentsOf: ",\"generation\":\(generation)".utf8) }
                out.append(UInt8(ascii: "}"))
                finished = true
            }
            return out
        }
    }

    private static func append(_ update: ReplicaRecordUpdate, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let epoch = update.epoch {
            out.append(contentsOf: "\"epoch\":".utf8)
            JSONText.appendString(epoch, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: "\"seq\":\(update.seq),\"set\":".utf8)
        append(update.set, to: &out)
        out.append(contentsOf: ",\"removed\":[".utf8)
        for (index, id) in update.removed.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(id, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
    }

    private static func append(_ entries: [String: ReplicaEntry], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (id, entry) in entries {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendString(id, to: &out)
            out.append(UInt8(ascii: ":"))
            append(entry, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    fileprivate static func append(_ entry: ReplicaEntry, to out: inout [UInt8]) {
        var members: [(String, ReplicaBook)] = []
        if entry.isSettled, let base = entry.base {
            members.append(("settled", base))  // owner and base the same: written once
        } else {
            if let owner = entry.owner { members.append(("owner", owner)) }
            if let base = entry.base { members.append(("base", base)) }
        }
        out.append(UInt8(ascii: "{"))
        for (index, (key, book)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"\(key)\":{\"book\":".utf8)
            append(book.book, to: &out)
            out.append(contentsOf: ",\"version\":\(book.version)}".utf8)
        }
        if let sent = entry.sent {
            if !members.isEmpty { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"sent\":{".utf8)
            if let book = sent.book {
                out.append(contentsOf: "\"book\":".utf8)
                append(book, to: &out)
                out.append(UInt8(ascii: ","))
            }
            out.append(contentsOf: "\"version\":\(sent.version)}".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func append(_ book: Book, to out: inout [UInt8]) {
        out.append(contentsOf: "{\"id\":".utf8)
        JSONText.appendString(book.id, to: &out)
        out.append(contentsOf: ",\"name\":".utf8)
        JSONText.appendString(book.name, to: &out)
        out.append(contentsOf: ",\"author\":".utf8)
        JSONText.appendString(book.author, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
