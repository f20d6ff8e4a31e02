import FoundationEssentials

/// Turns one request line (without its newline) into a `Request`, or a typed error that says
/// which `ProtocolError` to answer with and whether to disconnect.
///
/// Checks, in order: UTF-8 validity (`invalid-utf8`), nesting depth by a non-recursive pre-scan
/// (`too-deep` beyond `maxDepth`), then JSON decoding. Not JSON, not an object, a missing or
/// ill-typed field, or a missing `id`/`op` → `bad-request`; an `op` string this version does not
/// know → `unknown-op` (not a disconnect). The id is extracted whenever the line is a JSON object
/// with a string or numeric `id`, so error replies carry it. Stateless and thread-safe.
public struct RequestDecoder: Sendable {
    /// The default maximum nesting depth of arrays and objects.
    public static let defaultMaxDepth = 32

    /// Lines nesting arrays/objects deeper than this are rejected with `too-deep`.
    public var maxDepth: Int

    /// Creates a decoder.
    public init(maxDepth: Int = RequestDecoder.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// Decodes a line.
    public func decode(_ line: [UInt8]) throws(RequestDecodingError) -> Request {
        if String(validating: line, as: UTF8.self) == nil {
            throw RequestDecodingError(id: nil, error: ProtocolError(.invalidUTF8, "request is not valid UTF-8"))
        }
        if RequestDecoder.nestingDepthExceeds(line, maxDepth) {
            throw RequestDecodingError(
                id: nil,
                error: ProtocolError(
                    .tooDeep, "JSON nests deeper than \(maxDepth) levels"))
        }
        let data = Data(line)
        let decoder = JSONDecoder()
        do {
            return try decoder.decode(Request.self, from: data)
        } catch {
            throw RequestDecoder.diagnose(data, decoder: decoder, error: error)
        }
    }

    /// True when arrays/objects in `bytes` nest deeper than `limit` (strings are skipped; the scan
    /// is a single loop with no recursion, so any input is safe).
    public static func nestingDepthExceeds(_ bytes: [UInt8], _ limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }

    private struct Envelope: Decodable {
        var id: String?
        var op: String?
        var opPresent: Bool
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Request.CodingKeys.self)
            id = try? Request.decodeID(c)
            opPresent = c.contains(.op)
            op = try? c.decode(String.self, forKey: .op)
        }
    }

    private static func diagnose(_ data: Data, decoder: JSONDecoder, error: any Error) -> RequestDecodingError {
        guard let envelope = try? decoder.decode(Envelope.self, from: data) else {
            return RequestDecodingError(id: nil, error: ProtocolError(.badRequest, "request is not a JSON object"))
        }
        guard let id = envelope.id else {
            return RequestDecodingError(
                id: nil, error: ProtocolError(.badRequest, "missing or invalid id (string or number)"))
        }
        guard let op = envelope.op else {
            let what = envelope.opPresent ? "op must be a string" : "missing op"
            return RequestDecodingError(id: id, error: ProtocolError(.badRequest, what))
        }
        if Request.Operation(rawValue: op) == nil {
            return RequestDecodingError(id: id, error: ProtocolError(.unknownOp, "unknown op \"\(op)\""))
        }
        return RequestDecodingError(
            id: id, error: ProtocolError(.badRequest, DecodingErrorText.describe(error, root: "request")))
    }
}
