import BooksCore

extension FastMessageDecoder {
    /// A change's `actor` object: every member optional, unknown members skipped; nil (the line is
    /// left to `JSONDecoder`) for a member of the wrong type or range, or one that occurs twice.
    static func actor(_ s: inout JSONScanner) -> ChangeActor? {
        var actor = ChangeActor()
        var seen = 0
        func text(_ s: inout JSONScanner, _ bit: Int, _ slot: inout String?) -> Bool {
            guard once(&seen, bit) else { return false }
            return optional(&s, &slot) { $0.string() }
        }
        let ok = s.object { s, key in
            switch key {
            case "uid":
                guard once(&seen, 1) else { return false }
                return optional(&s, &actor.uid) { $0.unsigned().flatMap { UInt32(exactly: $0) } }
            case "pid":
                guard once(&seen, 2) else { return false }
                return optional(&s, &actor.pid) { $0.signed().flatMap { Int32(exactly: $0) } }
            case "user": return text(&s, 4, &actor.user)
            case "program": return text(&s, 8, &actor.program)
            case "host": return text(&s, 16, &actor.host)
            case "editor": return text(&s, 32, &actor.editor)
            case "via": return text(&s, 64, &actor.via)
            case "natsUser": return text(&s, 128, &actor.natsUser)
            default: return s.skipValue()
            }
        }
        return ok ? actor : nil
    }
}
