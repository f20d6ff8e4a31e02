import FoundationEssentials

/// Appends the fields of saved history in a fixed little-endian layout (the reader is
/// `HistoryByteReader`; the two are kept side by side).
public struct HistoryByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends one byte.
    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    /// Appends a 32-bit unsigned integer.
    public mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends a 64-bit unsigned integer.
    public mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends a length-prefixed byte string.
    public mutating func data(_ value: some Collection<UInt8>) {
        u64(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a length-prefixed UTF-8 string.
    public mutating func string(_ value: String) { data(value.utf8) }

    /// Appends a time exactly (its bit pattern).
    public mutating func time(_ value: Date) { u64(value.timeIntervalSinceReferenceDate.bitPattern) }

    /// Appends a book.
    public mutating func book(_ book: Book) {
        string(book.id)
        string(book.name)
        string(book.author)
    }

    /// Appends a list of books.
    public mutating func books(_ list: [Book]) {
        u64(UInt64(list.count))
        for item in list { book(item) }
    }

    /// Appends a change set with its seq, source, time, id remaps and actor. The byte after the
    /// seq says the layout: 0 or 1 (a file or client change set without an actor, as written
    /// before attribution was kept; still read), 2 (the source's name follows, and the actor
    /// after the remaps: ``actor(_:)``), 3 (as 2, then the merged save's base and the reverted
    /// seqs: ``mergeInfo(_:)``; written only for a change set that has either, so every other
    /// record stays readable by a daemon that knows layout 2 only).
    public mutating func changeSet(_ change: SequencedChangeSet) {
        let merged = change.mergedBase != nil || change.reverts != nil
        string(change.epoch)
        u64(change.seq)
        u8(merged ? 3 : 2)
        string(change.source.rawValue)
        time(change.time)
        books(change.changes.inserted)
        u64(UInt64(change.changes.updated.count))
        for update in change.changes.updated {
            book(update.old)
            book(update.new)
        }
        books(change.changes.deleted)
        u64(UInt64(change.remapped.count))
        for remap in change.remapped {
            string(remap.temporaryID)
            string(remap.permanentID)
        }
        actor(change.actor)
        if merged { mergeInfo(change) }
    }

    /// Appends a merged save's base and the seqs a standing edit reverted: a byte with bit 0 (a
    /// base follows, u64) and bit 1 (a count and that many u64 seqs follow).
    public mutating func mergeInfo(_ change: SequencedChangeSet) {
        u8((change.mergedBase != nil ? 1 : 0) | (change.reverts != nil ? 2 : 0))
        if let base = change.mergedBase { u64(base) }
        if let reverts = change.reverts {
            u64(UInt64(reverts.count))
            for seq in reverts { u64(seq) }
        }
    }

    /// Appends an actor: a byte with a bit for each field present (bit 7: an actor at all;
    /// bits 0-5: uid, user, pid, program, host, editor; bit 6: a second such byte follows, bit 0
    /// via, bit 1 natsUser — left out when neither is set, so the actors written before those
    /// fields existed read alike), then those fields in that order.
    public mutating func actor(_ actor: ChangeActor?) {
        guard let actor else { return u8(0) }
        // Written on every client write: no arrays, no closures (nothing allocated but the bytes).
        var mask: UInt8 = 0x80
        if actor.uid != nil { mask |= 1 }
        if actor.user != nil { mask |= 2 }
        if actor.pid != nil { mask |= 4 }
        if actor.program != nil { mask |= 8 }
        if actor.host != nil { mask |= 16 }
        if actor.editor != nil { mask |= 32 }
        var more: UInt8 = 0
        if actor.via != nil { more |= 1 }
        if actor.natsUser != nil { more |= 2 }
        if more != 0 { mask |= 0x40 }
        u8(mask)
        if more != 0 { u8(more) }
        if let uid = actor.uid { u32(uid) }
        if let user = actor.user { string(user) }
        if let pid = actor.pid { u32(UInt32(bitPattern: pid)) }
        if let program = actor.program { string(program) }
        if let host = actor.host { string(host) }
        if let editor = actor.editor { string(editor) }
        if let via = actor.via { string(via) }
        if let natsUser = actor.natsUser { string(natsUser) }
    }
}
