import BooksCore

/// One-line JSON objects with a fixed key order (JSONEncoder does not promise one).
enum JSONLine {
    /// `text` as a JSON string literal (see `BooksCore.JSONText`).
    static func string(_ text: String) -> String { JSONText.string(text) }

    /// An object from `(key, already-encoded value)` pairs, in the given order, on one line.
    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `actor` as an object of the members known, in the order uid, user, pid, program, host,
    /// editor, via, natsUser (the daemon's `"actor"`).
    static func actor(_ actor: ChangeActor) -> String {
        var pairs: [(String, String)] = []
        if let uid = actor.uid { pairs.append(("uid", String(uid))) }
        if let user = actor.user { pairs.append(("user", string(user))) }
        if let pid = actor.pid { pairs.append(("pid", String(pid))) }
        if let program = actor.program { pairs.append(("program", string(program))) }
        if let host = actor.host { pairs.append(("host", string(host))) }
        if let editor = actor.editor { pairs.append(("editor", string(editor))) }
        if let via = actor.via { pairs.append(("via", string(via))) }
        if let natsUser = actor.natsUser { pairs.append(("natsUser", string(natsUser))) }
        return object(pairs)
    }
}
