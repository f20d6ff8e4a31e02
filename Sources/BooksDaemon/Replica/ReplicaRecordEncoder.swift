import BooksCore

/// Writes a replica's record and its updates as the JSON `JSONDecoder` reads back into the same
/// values (the `Codable` shape: absent optionals left out), without building an encoder tree: a
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
    static func record(_ record: ReplicaRecord) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + record.entries.count * 160)
        out.append(contentsOf: "{\"replicaID\":".utf8)
        JSONText.appendString(record.replicaID, to: &out)
        if let epoch = record.epoch {
            out.append(contentsOf: ",\"epoch\":".utf8)
            JSONText.appendString(epoch, to: &out)
        }
        out.append(contentsOf: ",\"seq\":\(record.seq),\"entries\":".utf8)
        append(record.entries, to: &out)
        if let generation = record.generation { out.append(contentsOf: ",\"generation\":\(generation)".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
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

    private static func append(_ entry: ReplicaEntry, to out: inout [UInt8]) {
        var members: [(String, ReplicaBook)] = []
        if let owner = entry.owner { members.append(("owner", owner)) }
        if let base = entry.base { members.append(("base", base)) }
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
