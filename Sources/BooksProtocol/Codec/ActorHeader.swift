import BooksCore

/// The `Books-Actor` header of a request over NATS: who the requester says it is.
///
/// NATS does not tell a subscriber who published a message, so a NATS client declares itself:
/// the value is a JSON object of the ``ChangeActor`` members `uid`, `user`, `pid`, `program`,
/// `host`, `natsUser` and (from a replica forwarding a hand edit of its file) `editor` (e.g.
/// `{"uid":1000,"user":"alice","pid":4242,"program":"booksctl","host":"web1","natsUser":"ops"}`).
/// booksd records it as the actor of the request's writes, marked `via` `nats`: a declaration,
/// not a credential the kernel vouches for.
public enum ActorHeader {
    /// The header's name.
    public static let name = "Books-Actor"
    /// The longest value read; a longer one is ignored.
    public static let maxBytes = 1024

    /// The header value declaring `actor` (its `via` is left out: booksd sets it).
    public static func value(declaring actor: ChangeActor) -> String {
        var declared = actor
        declared.via = nil
        var writer = JSONWriter(capacity: 128)
        writer.actor(declared)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Why a header value is not taken.
    public enum Refusal: Error, Equatable, Sendable {
        /// Longer than ``ActorHeader/maxBytes``.
        case tooLong(Int)
        /// Not a JSON object of the actor's members with the right types.
        case malformed
    }

    /// The actor `value` declares, marked `via` `nats` (a declared `via` is replaced; a declared
    /// `editor` is kept, as declared as the rest: a replica names the editor of a hand edit).
    /// - Throws: ``Refusal`` for a value that is too long or not an actor object.
    public static func actor(from value: String) throws(Refusal) -> ChangeActor {
        var bytes = Array(value.utf8)
        guard bytes.count <= maxBytes else { throw .tooLong(bytes.count) }
        let parsed: ChangeActor? = bytes.withUnsafeMutableBufferPointer { buffer in
            var s = JSONScanner(UnsafeBufferPointer(buffer))
            guard let actor = FastMessageDecoder.actor(&s) else { return nil }
            s.skipWhitespace()
            return s.isAtEnd ? actor : nil
        }
        guard var actor = parsed else { throw .malformed }
        actor.via = "nats"
        return actor
    }
}
