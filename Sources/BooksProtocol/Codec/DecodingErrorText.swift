/// Short human descriptions of `DecodingError`s, shared by the decoders of both directions.
enum DecodingErrorText {
    /// `path: what went wrong`, e.g. `result.books[2].name: expected String, found null`; the path
    /// is `root` when the error is about the whole value. Errors other than `DecodingError`
    /// become `malformed <root>`.
    static func describe(_ error: any Error, root: String) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            if keys.isEmpty { return root }
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text
        }
        guard let error = error as? DecodingError else { return "malformed \(root)" }
        switch error {
        case .typeMismatch(let type, let ctx): return "\(path(ctx.codingPath)): expected \(type)"
        case .valueNotFound(let type, let ctx): return "\(path(ctx.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let ctx): return "\(path(ctx.codingPath + [key])): missing"
        case .dataCorrupted(let ctx): return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default: return "malformed \(root)"
        }
    }
}
