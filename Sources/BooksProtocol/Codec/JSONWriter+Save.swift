import BooksCore

/// The members of a `save`'s reply and conflict error.
extension JSONWriter {
    /// A JSON object of strings, keys sorted (equal maps give equal bytes).
    mutating func stringMap(_ map: [String: String]) {
        raw(UInt8(ascii: "{"))
        for (k, key) in map.keys.sorted().enumerated() {
            if k > 0 { raw(UInt8(ascii: ",")) }
            string(key)
            raw(UInt8(ascii: ":"))
            string(map[key]!)
        }
        raw(UInt8(ascii: "}"))
    }

    /// The `conflicts` of a failed `save`: `[{"id","current","currentVersion","message"}]`.
    mutating func conflicts(_ conflicts: [BookConflict]) {
        raw(UInt8(ascii: "["))
        for (k, conflict) in conflicts.enumerated() {
            if k > 0 { raw(UInt8(ascii: ",")) }
            var first = true
            raw(UInt8(ascii: "{"))
            key("id", first: &first)
            string(conflict.id)
            if let current = conflict.current {
                key("current", first: &first)
                book(current)
            }
            if let version = conflict.currentVersion {
                key("currentVersion", first: &first)
                unsigned(version)
            }
            key("message", first: &first)
            string(conflict.message)
            raw(UInt8(ascii: "}"))
        }
        raw(UInt8(ascii: "]"))
    }
}
