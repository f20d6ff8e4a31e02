/// The last change set a store handed out, `(epoch, seq)`, kept where a copy of the state directory
/// does not carry it (an extended attribute of the book file's directory, `ServedMarkAttribute`).
/// A saved state that ends before it, in the same epoch, is older than what subscribers already
/// got: continuing it would issue those sequence numbers again with other content.
public struct ServedMark: Sendable, Hashable {
    /// The epoch of the change set.
    public var epoch: String
    /// Its seq.
    public var seq: UInt64

    /// Creates a mark.
    public init(epoch: String, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }

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
