import BooksProtocol

/// The body of `GET …/books`, streamed: `{"epoch":…,"seq":…,"books":[…],"total":N,"next":…}`,
/// produced a chunk at a time from the engine's `BookStreamEncoder` (a single-line list reply),
/// so a page is never held whole. `next` is the `after=` token of the following page, or null.
///
/// The encoder's reply line is `{"id":…,"ok":true,"result":{…,"total":N}}\n`: this drops
/// everything before the result object and its closing `}\n`, and adds `next`.
public struct HTTPListBody: Sendable {
    private var encoder: BookStreamEncoder
    private let query: HTTPListQuery
    private var started = false
    /// True once the last chunk was returned.
    public private(set) var isFinished = false

    /// The body of the list reply `encoder` streams for `query`.
    public init(_ encoder: BookStreamEncoder, query: HTTPListQuery) {
        self.encoder = encoder
        self.query = query
    }

    /// The next chunk (about `targetBytes`); empty once finished.
    public mutating func nextChunk(targetBytes: Int) -> [UInt8] {
        guard !isFinished else { return [] }
        var chunk = encoder.nextChunk(targetBytes: targetBytes)
        if !started {
            started = true
            let marker = Array("\"result\":".utf8)
            if let start = Self.firstIndex(of: marker, in: chunk) {
                chunk.removeSubrange(0..<(start + marker.count))
            }
        }
        if encoder.isFinished {
            isFinished = true
            // `…,"total":N}}\n` → `…,"total":N,"next":…}\n`
            if chunk.count >= 3 { chunk.removeLast(3) }
            let total = Self.trailingNumber(chunk)
            let next = query.offset + query.limit
            chunk.append(contentsOf: Array(",\"next\":".utf8))
            chunk.append(contentsOf: Array((total.map { next < $0 } ?? false ? "\"\(next)\"" : "null").utf8))
            chunk.append(contentsOf: Array("}\n".utf8))
        }
        return chunk
    }

    static func firstIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        for i in 0...(bytes.count - marker.count) where bytes[i] == marker[0] {
            if Array(bytes[i..<(i + marker.count)]) == marker { return i }
        }
        return nil
    }

    static func trailingNumber(_ bytes: [UInt8]) -> Int? {
        var i = bytes.count
        while i > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i - 1]) { i -= 1 }
        return Int(String(decoding: bytes[i...], as: UTF8.self))
    }
}
