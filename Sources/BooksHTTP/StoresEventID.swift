import BooksCore
import BooksProtocol

/// The SSE event id of a feed of several stores (`/v1/changes?stores=…`): every store's
/// position after the event, `STORE=EPOCH:SEQ` joined by `,`, stores in name order, each name
/// percent-encoded (all but ASCII letters, digits and `-._~`), e.g.
/// `default=5A09…:4,fiction=77B1…:12`. Sent back as `Last-Event-ID` (or `?since=`), it resumes
/// each store exactly after its own position; a store not named starts from now. Pure.
public enum StoresEventID {
    /// The id of `positions`.
    public static func format(_ positions: [String: ResumePoint]) -> String {
        positions.keys.sorted().map { store in
            let point = positions[store]!
            return HTTPReplyMapper.percentEncoded(store) + "=" + EventID.format(epoch: point.epoch, seq: point.seq)
        }.joined(separator: ",")
    }

    /// The positions an id names, or nil when it is not one (an empty text is no positions).
    public static func parse(_ text: String) -> [String: ResumePoint]? {
        var positions: [String: ResumePoint] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let equals = item.firstIndex(of: "="), let store = percentDecoded(item[..<equals]), !store.isEmpty,
                let point = EventID.parse(String(item[item.index(after: equals)...])), positions[store] == nil
            else { return nil }
            positions[store] = point
        }
        return positions
    }

    /// `text` with `%XX` decoded (UTF-8), or nil for a bad escape.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next(), let low = utf8.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
