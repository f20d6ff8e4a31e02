/// The wire shape of a bad line: `{"line":19,"code":"wrong-field-count","message":"wrong number of
/// fields: …","text":"…","fields":4}`. `message` is the reason's description; the detail keys
/// (`fields`; `id` and `firstLine`; `limit`; `id`) let a decoder rebuild the exact reason.
extension BadLine: Codable {
    private enum Key: String, CodingKey {
        case line, code, message, text, fields, id, firstLine, limit
    }

    /// Decodes the shape above; an unknown `code` is a decoding error.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let code = try c.decode(String.self, forKey: .code)
        let reason: BadLineReason
        switch code {
        case "wrong-field-count": reason = .wrongFieldCount(try c.decode(Int.self, forKey: .fields))
        case "empty-id": reason = .emptyID
        case "invalid-utf8": reason = .invalidUTF8
        case "duplicate-id":
            reason = .duplicateID(
                try c.decode(String.self, forKey: .id), firstLine: try c.decode(Int.self, forKey: .firstLine))
        case "too-long": reason = .tooLong(limit: try c.decode(Int.self, forKey: .limit))
        case "missing-field": reason = .missingField(id: try c.decode(String.self, forKey: .id))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .code, in: c, debugDescription: "unknown bad-line code \(code)")
        }
        self.init(
            lineNumber: try c.decode(Int.self, forKey: .line), reason: reason,
            text: try c.decode(String.self, forKey: .text))
    }

    /// Encodes the shape above.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(lineNumber, forKey: .line)
        try c.encode(reason.code, forKey: .code)
        try c.encode(reason.description, forKey: .message)
        try c.encode(text, forKey: .text)
        switch reason {
        case .wrongFieldCount(let n): try c.encode(n, forKey: .fields)
        case .duplicateID(let id, let first):
            try c.encode(id, forKey: .id)
            try c.encode(first, forKey: .firstLine)
        case .tooLong(let limit): try c.encode(limit, forKey: .limit)
        case .missingField(let id): try c.encode(id, forKey: .id)
        case .emptyID, .invalidUTF8: break
        }
    }
}
