import BooksCore
import BooksNATS
import Glibc

/// The single-owner lease of a store: key `owner` in the bucket
/// `<prefix>_<store>_owner`, whose values expire `ttlSeconds` after their last write. A booksd
/// publishes only while it holds the lease: it takes it with a create (compare-and-set on "no
/// value"), keeps it with an update on the revision it wrote (every `renewEvery`), and a second
/// booksd for the same store waits, saying who holds it, until the holder's value expires.
///
/// Runs on the publisher's thread only (a value type owned by `NATSPublisherLoop`).
struct NATSOwnerLease {
    static let ttlSeconds: Int64 = 6
    static let renewEvery: Duration = .seconds(2)
    static let key = "owner"

    /// This daemon's value: `{"host","pid","epoch"}`.
    let identity: [UInt8]
    /// The revision of our value while we hold the lease.
    private(set) var revision: UInt64?
    private(set) var renewedAt = ContinuousClock.now

    init(epoch: String) {
        var name = [CChar](repeating: 0, count: 256)
        _ = gethostname(&name, name.count)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var out: [UInt8] = Array("{\"host\":".utf8)
        JSONText.appendString(host, to: &out)
        out += Array(",\"pid\":\(getpid()),\"epoch\":".utf8)
        JSONText.appendString(epoch, to: &out)
        out.append(UInt8(ascii: "}"))
        identity = out
    }

    var isHeld: Bool { revision != nil }

    /// Whether a renewal is due at `now`.
    func renewalDue(at now: ContinuousClock.Instant) -> Bool {
        isHeld && now - renewedAt >= Self.renewEvery
    }

    /// Takes the lease; returns nil when held by us now, else who holds it.
    mutating func acquire(_ bucket: KeyValueStore) throws(NATSError) -> String? {
        if let created = try bucket.create(Self.key, identity) {
            revision = created
            renewedAt = .now
            return nil
        }
        guard let current = try bucket.entry(Self.key) else { return "nobody (it just expired: retrying)" }
        if current.value == identity, let updated = try bucket.update(Self.key, identity, revision: current.revision) {
            revision = updated  // ours, from before a reconnect
            renewedAt = .now
            return nil
        }
        return String(decoding: current.value, as: UTF8.self)
    }

    /// Renews the lease; false when it was lost (expired and taken, or changed by someone else).
    mutating func renew(_ bucket: KeyValueStore) throws(NATSError) -> Bool {
        guard let revision else { return false }
        guard let updated = try bucket.update(Self.key, identity, revision: revision) else {
            self.revision = nil
            return false
        }
        self.revision = updated
        renewedAt = .now
        return true
    }

    /// Forgets the lease (after a failure: it is taken again before publishing).
    mutating func drop() { revision = nil }

    /// Gives the lease up when the publisher stops (its store was removed), so a booksd serving the
    /// store next takes it at once instead of after `ttlSeconds`. Best effort: when this fails the
    /// value simply expires.
    mutating func release(_ bucket: KeyValueStore) {
        guard isHeld else { return }
        revision = nil
        try? bucket.delete(Self.key)
    }
}
