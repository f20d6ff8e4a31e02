/// A point in a store's history, its lineage and a seq: the last change a subscriber has seen,
/// the last change set a NATS stream holds (`NATSNaming.position(fromMessageID:)`), or the last
/// change set a store handed out (its served mark, ``encoded``).
public struct ResumePoint: Sendable, Hashable, Codable {
    /// The lineage.
    public var epoch: String
    /// The last sequence number seen.
    public var seq: UInt64

    /// Creates a resume point.
    public init(epoch: String, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }
}

/// The served mark: the last change set a store handed out, kept where a copy of the state
/// directory does not carry it (an extended attribute of the book file's directory,
/// `ServedMarkAttribute`). A saved state that ends before it, in the same epoch, is older than what
/// subscribers already got: continuing it would issue those sequence numbers again with other content.
extension ResumePoint {
    /// `EPOCH SEQ` in ASCII.
    public var encoded: [UInt8] { Array("\(epoch) \(seq)".utf8) }

    /// The mark `encoded` wrote; nil for anything else (never throws).
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count <= 256, let space = bytes.lastIndex(of: UInt8(ascii: " ")), space > 0 else { return nil }
        let epochBytes = bytes[..<space]
        guard epochBytes.allSatisfy({ $0 > 32 && $0 < 127 }),
            let seq = UInt64(String(decoding: bytes[(space + 1)...], as: UTF8.self))
        else { return nil }
        self.init(epoch: String(decoding: epochBytes, as: UTF8.self), seq: seq)
    }
}
