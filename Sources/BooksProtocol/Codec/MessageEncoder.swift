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
        w.object { w, first in
            w.member("event", event.event.rawValue, first: &first)
            w.member("store", ifPresent: event.store, first: &first)
            w.member("epoch", event.epoch, first: &first)
            w.member("seq", event.seq, first: &first)
            w.member("source", ifPresent: event.source?.rawValue, first: &first)
            w.member("time", ifPresent: event.time, first: &first)
            w.member("actor", ifPresent: event.actor, first: &first) { $0.actor($1) }
            w.member("inserted", ifPresent: event.inserted, first: &first) { $0.books($1) }
            w.member("updated", ifPresent: event.updated, first: &first) { $0.updates($1) }
            w.member("deleted", ifPresent: event.deleted, first: &first) { $0.books($1) }
            w.member("books", ifPresent: event.books, first: &first) { $0.books($1) }
            w.member("reason", ifPresent: event.reason, first: &first)
            w.member("more", ifPresent: event.more, first: &first)
            w.member("merged", ifPresent: event.merged, first: &first) { w, merged in
                w.object { w, first in w.member("base", merged.base, first: &first) }
            }
            w.member("reverts", ifPresent: event.reverts, first: &first) { $0.unsignedArray($1) }
            encodeConflict(event, into: &w, first: &first)
        }
        w.raw(UInt8(ascii: "\n"))
        return w.bytes
    }

    /// A `conflict` event's `conflict` and `resolved` (rare, small: `JSONEncoder`, the shape of
    /// `status`'s conflicts).
    static func encodeConflict(_ event: Event, into w: inout JSONWriter, first: inout Bool) {
        // A recorded conflict holds strings, integers and a date: encoding it cannot fail.
        w.encodedMember("conflict", ifPresent: event.conflict, first: &first)
        w.member("resolved", ifPresent: event.resolved?.rawValue, first: &first)
    }

    /// Encodes a reply as one line. `result.status` is encoded with `JSONEncoder` (small, rare);
    /// everything else by hand.
    public static func encode(_ reply: Reply) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + 96 * (reply.result?.books?.count ?? 0))
        w.object { w, first in
            w.key("id", first: &first)
            if let id = reply.id { w.string(id) } else { w.raw("null") }
            w.key("ok", first: &first)
            w.bool(reply.ok)
            w.member("result", ifPresent: reply.result, first: &first) { encode($1, into: &$0) }
            w.member("error", ifPresent: reply.error, first: &first) { encode($1, into: &$0) }
        }
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
        w.object { w, first in
            w.member("protocolVersion", ifPresent: result.protocolVersion, first: &first)
            w.member("server", ifPresent: result.server, first: &first)
            w.member("epoch", ifPresent: result.epoch, first: &first)
            w.member("seq", ifPresent: result.seq, first: &first)
            w.member("books", ifPresent: result.books, first: &first) { $0.books($1) }
            w.member("versions", ifPresent: result.versions, first: &first) { $0.unsignedArray($1) }
            w.member("total", ifPresent: result.total, first: &first)
            w.member("more", ifPresent: result.more, first: &first)
            w.member("remap", ifPresent: result.remap, first: &first) { $0.stringMap($1) }
            w.member("stores", ifPresent: result.stores, first: &first) { $0.storeInfos($1) }
            w.member("subscribedStores", ifPresent: result.subscribedStores, first: &first) { $0.stringArray($1) }
            // Only a non-finite `uptimeSeconds` can make this fail; then the field is omitted.
            w.encodedMember("status", ifPresent: result.status, first: &first)
            // Conflicts hold strings, integers and a finite date: encoding them cannot fail.
            w.encodedMember("conflicts", ifPresent: result.conflicts, first: &first)
            w.member("merged", ifPresent: result.merged, first: &first) { $0.stringArray($1) }
            encodeHistory(result, into: &w, first: &first)
        }
    }

    private static func encode(_ error: ProtocolError, into w: inout JSONWriter) {
        w.object { w, first in
            w.member("code", error.code.rawValue, first: &first)
            w.member("message", error.message, first: &first)
            w.member("current", ifPresent: error.current, first: &first) { $0.book($1) }
            w.member("currentVersion", ifPresent: error.currentVersion, first: &first)
            w.member("conflicts", ifPresent: error.conflicts, first: &first) { $0.conflicts($1) }
            w.member("stores", ifPresent: error.stores, first: &first) { $0.stringArray($1) }
        }
    }
}
