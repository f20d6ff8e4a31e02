import BooksCore

/// The fast path of `MessageDecoder`: a hand-written decoder for replies and events, without
/// Foundation's `JSONDecoder`.
///
/// Guarantee: for any line, it returns either nil or exactly the message `JSONDecoder` decodes
/// from it (the same `Codable` shapes: unknown keys ignored, `null` or absent optional fields are
/// nil). It returns nil — and `MessageDecoder` falls back to `JSONDecoder`, which decides and
/// explains — for anything it does not fully understand: invalid JSON or UTF-8, a missing or
/// ill-typed field, an unknown event kind or error code, a number with a fraction or exponent,
/// a `status` or `conflicts` result (rare; decoded by `JSONDecoder`), an update whose old and new ids differ, or
/// a key that occurs twice in one object (`JSONDecoder` keeps the first, a hand-written reader
/// easily the last: such lines are left to it).
enum FastMessageDecoder {
    static func decode(_ line: UnsafeBufferPointer<UInt8>) -> DaemonMessage? {
        var s = JSONScanner(line)
        var fields = TopLevel()
        guard s.object({ s, key in fields.read(key, &s) }) else { return nil }
        s.skipWhitespace()
        guard s.isAtEnd else { return nil }
        return fields.message
    }

    /// Every top-level member of either shape, as read.
    private struct TopLevel {
        var hasEvent = false
        var kind: Event.Kind?
        var store: String?
        var epoch: String?
        var seq: UInt64?
        var source: ChangeSource?
        var time: String?
        var inserted: [Book]?
        var updated: [BookUpdate]?
        var deleted: [Book]?
        var books: [Book]?
        var reason: String?
        var more: Bool?
        var merged: Event.MergedFrom?
        var reverts: [UInt64]?
        var actor: ChangeActor?
        var id: String?
        var ok: Bool?
        var result: ReplyResult?
        var error: ProtocolError?
        var seen = KeySet()

        mutating func read(_ key: String, _ s: inout JSONScanner) -> Bool {
            guard seen.insert(key) else { return false }
            switch key {
            case "event":
                hasEvent = true
                guard let text = s.string(), let value = Event.Kind(rawValue: text) else { return false }
                kind = value
                return true
            case "store": return optional(&s, &store) { $0.string() }
            case "epoch": return optional(&s, &epoch) { $0.string() }
            case "seq": return optional(&s, &seq) { $0.unsigned() }
            case "source": return optional(&s, &source) { $0.string().flatMap(ChangeSource.init(rawValue:)) }
            case "time": return optional(&s, &time) { $0.string() }
            case "inserted": return optional(&s, &inserted, FastMessageDecoder.books)
            case "updated": return optional(&s, &updated, FastMessageDecoder.updates)
            case "deleted": return optional(&s, &deleted, FastMessageDecoder.books)
            case "books": return optional(&s, &books, FastMessageDecoder.books)
            case "reason": return optional(&s, &reason) { $0.string() }
            case "more": return optional(&s, &more) { $0.bool() }
            case "merged": return optional(&s, &merged, FastMessageDecoder.mergedFrom)
            case "reverts": return optional(&s, &reverts, FastMessageDecoder.seqs)
            case "actor": return optional(&s, &actor, FastMessageDecoder.actor)
            case "conflict", "resolved": return false  // a conflict event (rare): JSONDecoder reads it
            case "id": return optional(&s, &id) { $0.string() }
            case "ok": return optional(&s, &ok) { $0.bool() }
            case "result": return optional(&s, &result, FastMessageDecoder.result)
            case "error": return optional(&s, &error, FastMessageDecoder.error)
            default: return s.skipValue()
            }
        }

        var message: DaemonMessage? {
            if hasEvent {
                guard let kind, let epoch, let seq else { return nil }
                var event = Event(
                    event: kind, epoch: epoch, seq: seq, source: source, time: time, inserted: inserted,
                    updated: updated, deleted: deleted, books: books, reason: reason, more: more,
                    store: store, actor: actor)
                event.merged = merged
                event.reverts = reverts
                return .event(event)
            }
            guard let ok else { return nil }
            return .reply(Reply(id: id, ok: ok, result: result, error: error))
        }
    }

    /// A `change` event's `merged`: `{"base": seq}`.
    static func mergedFrom(_ s: inout JSONScanner) -> Event.MergedFrom? {
        var base: UInt64?
        let ok = s.object { s, key in
            guard key == "base" else { return s.skipValue() }
            base = s.unsigned()
            return base != nil
        }
        return ok ? base.map(Event.MergedFrom.init(base:)) : nil
    }

    /// An array of sequence numbers.
    static func seqs(_ s: inout JSONScanner) -> [UInt64]? { list(&s) { $0.unsigned() } }

    /// Reads an optional member: `null` leaves it nil; otherwise `read` must succeed.
    static func optional<T>(
        _ s: inout JSONScanner, _ slot: inout T?, _ read: (inout JSONScanner) -> T?
    ) -> Bool {
        if s.consumeNull() {
            slot = nil
            return true
        }
        guard let value = read(&s) else { return false }
        slot = value
        return true
    }

    static func book(_ s: inout JSONScanner) -> Book? {
        var id: String?
        var name: String?
        var author: String?
        var seen = 0
        let ok = s.object { s, key in
            switch key {
            case "id":
                guard once(&seen, 1) else { return false }
                id = s.string()
            case "name":
                guard once(&seen, 2) else { return false }
                name = s.string()
            case "author":
                guard once(&seen, 4) else { return false }
                author = s.string()
            default: return s.skipValue()
            }
            return true
        }
        guard ok, let id, let name, let author else { return nil }
        return Book(id: id, name: name, author: author)
    }

    static func books(_ s: inout JSONScanner) -> [Book]? { list(&s, book) }

    static func updates(_ s: inout JSONScanner) -> [BookUpdate]? {
        list(&s) { s in
            var old: Book?
            var new: Book?
            var seen = 0
            let ok = s.object { s, key in
                switch key {
                case "old":
                    guard once(&seen, 1) else { return false }
                    old = book(&s)
                case "new":
                    guard once(&seen, 2) else { return false }
                    new = book(&s)
                default: return s.skipValue()
                }
                return true
            }
            // `BookUpdate.init` requires equal ids; JSONDecoder does not check: leave such lines to it.
            guard ok, let old, let new, old.id == new.id else { return nil }
            return BookUpdate(old: old, new: new)
        }
    }

    static func result(_ s: inout JSONScanner) -> ReplyResult? {
        var r = ReplyResult()
        var seen = KeySet()
        let ok = s.object { s, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "protocolVersion": return optional(&s, &r.protocolVersion) { $0.signed() }
            case "server": return optional(&s, &r.server) { $0.string() }
            case "epoch": return optional(&s, &r.epoch) { $0.string() }
            case "seq": return optional(&s, &r.seq) { $0.unsigned() }
            case "books": return optional(&s, &r.books, books)
            case "versions": return optional(&s, &r.versions, seqs)
            case "total": return optional(&s, &r.total) { $0.signed() }
            case "more": return optional(&s, &r.more) { $0.bool() }
            case "remap": return optional(&s, &r.remap, stringMap)
            case "stores": return optional(&s, &r.stores, storeInfos)
            case "subscribedStores": return optional(&s, &r.subscribedStores, strings)
            case "merged": return optional(&s, &r.merged, strings)
            case "status": return s.consumeNull()  // a status object is left to JSONDecoder
            case "conflicts": return s.consumeNull()  // so are conflicts (rare, small)
            case "history", "blame", "refused": return s.consumeNull()  // and the history's answers
            case "oldestSeq": return optional(&s, &r.oldestSeq) { $0.unsigned() }
            default: return s.skipValue()
            }
        }
        return ok ? r : nil
    }

    static func error(_ s: inout JSONScanner) -> ProtocolError? {
        var code: ProtocolError.ErrorCode?
        var message: String?
        var current: Book?
        var currentVersion: UInt64?
        var conflicts: [BookConflict]?
        var stores: [String]?
        var seen = KeySet()
        let ok = s.object { s, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "code":
                guard let text = s.string(), let value = ProtocolError.ErrorCode(rawValue: text) else { return false }
                code = value
                return true
            case "message": return optional(&s, &message) { $0.string() }
            case "current": return optional(&s, &current, book)
            case "currentVersion": return optional(&s, &currentVersion) { $0.unsigned() }
            case "conflicts": return optional(&s, &conflicts, FastMessageDecoder.conflicts)
            case "stores": return optional(&s, &stores, strings)
            default: return s.skipValue()
            }
        }
        guard ok, let code, let message else { return nil }
        return ProtocolError(
            code, message, current: current, currentVersion: currentVersion, conflicts: conflicts, stores: stores)
    }

    /// A `save` reply's `remap`: an object of strings (a duplicate key is left to `JSONDecoder`).
    static func stringMap(_ s: inout JSONScanner) -> [String: String]? {
        var map: [String: String] = [:]
        let ok = s.object { s, key in
            guard map[key] == nil, let value = s.string() else { return false }
            map[key] = value
            return true
        }
        return ok ? map : nil
    }

    /// A `save` conflict's `conflicts`: `[{"id","current","currentVersion","message"}]`.
    static func conflicts(_ s: inout JSONScanner) -> [BookConflict]? {
        list(&s) { s in
            var id: String?
            var current: Book?
            var currentVersion: UInt64?
            var message: String?
            var seen = KeySet()
            let ok = s.object { s, key in
                guard seen.insert(key) else { return false }
                switch key {
                case "id": return optional(&s, &id) { $0.string() }
                case "current": return optional(&s, &current, book)
                case "currentVersion": return optional(&s, &currentVersion) { $0.unsigned() }
                case "message": return optional(&s, &message) { $0.string() }
                default: return s.skipValue()
                }
            }
            guard ok, let id, let message else { return nil }
            return BookConflict(id: id, current: current, currentVersion: currentVersion, message: message)
        }
    }

    /// Marks `bit` in `seen`; false when it was already marked (a duplicate key).
    @inline(__always) static func once(_ seen: inout Int, _ bit: Int) -> Bool {
        guard seen & bit == 0 else { return false }
        seen |= bit
        return true
    }

    /// An array of strings.
    static func strings(_ s: inout JSONScanner) -> [String]? { list(&s) { $0.string() } }

    /// An array whose every element `element` reads; nil when one cannot be read (the line is
    /// then left to `JSONDecoder`).
    @inline(__always) static func list<Element>(
        _ s: inout JSONScanner, _ element: (inout JSONScanner) -> Element?
    ) -> [Element]? {
        var values: [Element] = []
        let ok = s.array { s in
            guard let value = element(&s) else { return false }
            values.append(value)
            return true
        }
        return ok ? values : nil
    }

    /// The keys of one object seen so far (objects of replies and events have a handful).
    struct KeySet {
        private var keys: [String] = []

        /// Adds `key`; false when it was already there.
        mutating func insert(_ key: String) -> Bool {
            if keys.contains(key) { return false }
            keys.append(key)
            return true
        }
    }
}
