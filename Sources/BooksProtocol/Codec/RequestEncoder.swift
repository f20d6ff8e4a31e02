import FoundationEssentials

/// Encodes client-to-daemon requests as single JSON lines (`[UInt8]` ending in `\n`): the inverse
/// of `RequestDecoder`.
///
/// Guarantees:
/// - The output is one compact JSON object followed by exactly one `\n`; there is no other raw
///   newline in it (newlines inside strings are escaped), so `LineFramer` yields it as one line.
/// - Optional fields that are nil are omitted, and `id` is always a JSON string, so
///   `RequestDecoder().decode(line without its "\n")` returns a `Request` equal to the one encoded.
/// - Strings are copied as raw UTF-8 (only `"`, `\` and control characters are escaped; `/` is not).
/// - Keys are sorted, so equal requests give equal bytes.
/// - Stateless and thread-safe. Requests are small, so this uses `JSONEncoder` (the synthesized
///   `Codable` shapes of `BookFilter`, `BookSort`, … stay the only definition of their JSON).
public enum RequestEncoder {
    /// Encodes `request` as one line.
    ///
    /// - Throws: `RequestEncodingError` when a value cannot be represented in JSON. No field of
    ///   `Request` can hold such a value today (it has no floating-point fields), so this is a
    ///   guard for future fields rather than a failure callers should expect.
    public static func encode(_ request: Request) throws(RequestEncodingError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        do {
            var bytes = [UInt8](try encoder.encode(request))
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        } catch {
            throw RequestEncodingError(id: request.id, op: request.op, reason: Self.describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? EncodingError else { return "\(error)" }
        switch error {
        case .invalidValue(let value, let ctx):
            let path = ctx.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return "\(path.isEmpty ? "request" : path): cannot represent \(value) in JSON (\(ctx.debugDescription))"
        @unknown default:
            return "\(error)"
        }
    }
}

/// A request that cannot be written as JSON (see `RequestEncoder.encode`).
public struct RequestEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request's id.
    public var id: String
    /// The request's operation.
    public var op: Request.Operation
    /// Which field failed and why.
    public var reason: String

    /// Creates an encoding error.
    public init(id: String, op: Request.Operation, reason: String) {
        self.id = id
        self.op = op
        self.reason = reason
    }

    /// `cannot encode request ID (OP): REASON`.
    public var description: String { "cannot encode request \(id) (\(op.rawValue)): \(reason)" }
}
