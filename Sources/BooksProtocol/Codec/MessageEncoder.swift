import BooksCore
import FoundationEssentials

/// Encodes daemon-to-client messages as single JSON lines (`[UInt8]` ending in `\n`).
///
/// Guarantees: the output is compact JSON with no raw newline before the terminating `\n`;
/// optional fields that are nil are omitted (the synthesized `Codable` shape), so `JSONDecoder`
/// decodes every line back into an equal value (`MessageDecoder` is the matching decoder).
/// Hand-written and allocation-light: an `Event` holding 1,000,000 books is encoded in one pass
/// into one buffer. Thread-safe (stateless).
public enum MessageEncoder {
    /// Encodes an event as one line.
    public static func encode(_ event: Event) -> [UInt8] {
        var w = JSONWriter(capacity: estimate(event))
        var first = true
        w.raw(UInt8(ascii: "{"))
        w.key("event", first: &first)
        w.string(event.event.rawValue)
        if let store = event.store {
            w.key("store", first: &first)
            w.string(store)
        }
        w.key("epoch", first: &first)
        w.string(event.epoch)
        w.key("seq", first: &first)
        w.unsigned(event.seq)
        if let source = event.source {
            w.key("source", first: &first)
            w.string(source.rawValue)
        }
        if let time = event.time {
            w.key("time", first: &first)
            w.string(time)
        }
        if let actor = event.actor {
            w.key("actor", first: &first)
            w.actor(actor)
        }
        if let inserted = event.inserted {
            w.key("inserted", first: &first)
            w.books(inserted)
        }
        if let updated = event.updated {
            w.key("updated", first: &first)
            w.updates(updated)
        }
        if let deleted = event.deleted {
            w.key("deleted", first: &first)
            w.books(deleted)
        }
        if let books = event.books {
            w.key("books", first: &first)
            w.books(books)
        }
        if let reason = event.reason {
            w.key("reason", first: &first)
            w.string(reason)
        }
        if let more = event.more {
            w.key("more", first: &first)
            w.bool(more)
        }
        if let merged = event.merged {
            w.key("merged", first: &first)
            var inner = true
            w.raw(UInt8(ascii: "{"))
            w.key("base", first: &inner)
            w.unsigned(merged.base)
            w.raw(UInt8(ascii: "}"))
        }
        if let reverts = event.reverts {
            w.key("reverts", first: &first)
            w.raw(UInt8(ascii: "["))
            for (k, seq) in reverts.enumerated() {
                if k > 0 { w.raw(UInt8(ascii: ",")) }
                w.unsigned(seq)
            }
            w.raw(UInt8(ascii: "]"))
        }
        encodeConflict(event, into: &w, first: &first)
        w.raw(UInt8(ascii: "}"))
        w.raw(UInt8(ascii: "\n"))
        return w.bytes
    }

    /// A `conflict` event's `conflict` and `resolved` (rare, small: `JSONEncoder`, the shape of
    /// `status`'s conflicts).
    static func encodeConflict(_ event: Event, into w: inout JSONWriter, first: inout Bool) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A recorded conflict holds strings, integers and a date: encoding it cannot fail.
        if let conflict = event.conflict, let data = try? encoder.encode(conflict) {
            w.key("conflict", first: &first)
            w.bytes.append(contentsOf: data)
        }
        if let side = event.resolved {
            w.key("resolved", first: &first)
            w.string(side.rawValue)
        }
    }

    /// Encodes a reply as one line. `result.status` is encoded with `JSONEncoder` (small, rare);
    /// everything else by hand.
    public static func encode(_ reply: Reply) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + 96 * (reply.result?.books?.count ?? 0))
        var first = true
        w.raw(UInt8(ascii: "{"))
        w.key("id", first: &first)
        if let id = reply.id { w.string(id) } else { w.raw("null") }
        w.key("ok", first: &first)
        w.bool(reply.ok)
        if let result = reply.result {
            w.key("result", first: &first)
            encode(result, into: &w)
        }
        if let error = reply.error {
            w.key("error", first: &first)
            encode(error, into: &w)
        }
        w.raw(UInt8(ascii: "}"))
        w.raw(UInt8(ascii: "\n"))
        return w.bytes
    }

    /// Encodes a request as one line: the same bytes as `RequestEncoder.encode(_:)`, which is the
    /// request codec (beside `RequestDecoder`) and reports failures as `RequestEncodingError`.
    /// Kept for existing callers; throws `EncodingError.invalidValue` where that one throws.
    public static func encode(_ request: Request) throws(EncodingError) -> [UInt8] {
        do {
            return try RequestEncoder.encode(request)
        } catch {
            throw EncodingError.invalidValue(request, .init(codingPath: [], debugDescription: error.description))
        }
    }

    /// The `change` event for `change` as seen through `filter` (see `ChangeSet.filtered(by:)`),
    /// or nil when nothing in it matches the filter. `inserted`, `updated` and `deleted` are
    /// always present (possibly empty).
    /// `store` (version 2) names the store the change belongs to.
    public static func changeEvent(
        _ change: SequencedChangeSet, filter: BookFilter = .all, store: String? = nil
    ) -> Event? {
        let visible = change.changes.filtered(by: filter)
        if visible.isEmpty { return nil }
        var event = Event(
            event: .change, epoch: change.epoch, seq: change.seq, source: change.source,
            time: ISO8601.format(change.time), inserted: visible.inserted,
            updated: visible.updated, deleted: visible.deleted, store: store, actor: change.actor)
        event.merged = change.mergedBase.map { Event.MergedFrom(base: $0) }
        event.reverts = change.reverts
        return event
    }

    private static func estimate(_ event: Event) -> Int {
        let books =
            (event.inserted?.count ?? 0) + 2 * (event.updated?.count ?? 0)
            + (event.deleted?.count ?? 0) + (event.books?.count ?? 0)
        return 160 + 96 * books
    }

    private static func encode(_ result: ReplyResult, into w: inout JSONWriter) {
        var first = true
        w.raw(UInt8(ascii: "{"))
        if let v = result.protocolVersion {
            w.key("protocolVersion", first: &first)
            w.signed(v)
        }
        if let v = result.server {
            w.key("server", first: &first)
            w.string(v)
        }
        if let v = result.epoch {
            w.key("epoch", first: &first)
            w.string(v)
        }
        if let v = result.seq {
            w.key("seq", first: &first)
            w.unsigned(v)
        }
        if let v = result.books {
            w.key("books", first: &first)
            w.books(v)
        }
        if let v = result.versions {
            w.key("versions", first: &first)
            w.unsignedArray(v)
        }
        if let v = result.total {
            w.key("total", first: &first)
            w.signed(v)
        }
        if let v = result.more {
            w.key("more", first: &first)
            w.bool(v)
        }
        if let v = result.remap {
            w.key("remap", first: &first)
            w.stringMap(v)
        }
        if let v = result.stores {
            w.key("stores", first: &first)
            w.storeInfos(v)
        }
        if let v = result.subscribedStores {
            w.key("subscribedStores", first: &first)
            w.stringArray(v)
        }
        if let v = result.status {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            // Only a non-finite `uptimeSeconds` can make this fail; then the field is omitted.
            if let data = try? encoder.encode(v) {
                w.key("status", first: &first)
                w.bytes.append(contentsOf: data)
            }
        }
        if let v = result.conflicts {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            // Conflicts hold strings, integers and a finite date: encoding them cannot fail.
            if let data = try? encoder.encode(v) {
                w.key("conflicts", first: &first)
                w.bytes.append(contentsOf: data)
            }
        }
        if let v = result.merged {
            w.key("merged", first: &first)
            w.stringArray(v)
        }
        encodeHistory(result, into: &w, first: &first)
        w.raw(UInt8(ascii: "}"))
    }

    private static func encode(_ error: ProtocolError, into w: inout JSONWriter) {
        var first = true
        w.raw(UInt8(ascii: "{"))
        w.key("code", first: &first)
        w.string(error.code.rawValue)
        w.key("message", first: &first)
        w.string(error.message)
        if let v = error.current {
            w.key("current", first: &first)
            w.book(v)
        }
        if let v = error.currentVersion {
            w.key("currentVersion", first: &first)
            w.unsigned(v)
        }
        if let v = error.conflicts {
            w.key("conflicts", first: &first)
            w.conflicts(v)
        }
        if let v = error.stores {
            w.key("stores", first: &first)
            w.stringArray(v)
        }
        w.raw(UInt8(ascii: "}"))
    }
}
