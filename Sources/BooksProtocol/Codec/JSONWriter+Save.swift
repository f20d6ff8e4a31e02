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
        array(conflicts) { w, conflict in
            w.object { w, first in
                w.member("id", conflict.id, first: &first)
                if let current = conflict.current {
                    w.key("current", first: &first)
                    w.book(current)
                }
                w.member("currentVersion", ifPresent: conflict.currentVersion, first: &first)
                w.member("message", conflict.message, first: &first)
            }
        }
    }
}
