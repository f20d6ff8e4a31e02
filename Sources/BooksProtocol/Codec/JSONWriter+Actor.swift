import BooksCore

extension JSONWriter {
    /// `{"uid":…,"user":…,"pid":…,"program":…,"host":…,"editor":…}`, members that are nil left out.
    mutating func actor(_ actor: ChangeActor) {
        var first = true
        raw(UInt8(ascii: "{"))
        if let uid = actor.uid {
            key("uid", first: &first)
            unsigned(UInt64(uid))
        }
        if let user = actor.user {
            key("user", first: &first)
            string(user)
        }
        if let pid = actor.pid {
            key("pid", first: &first)
            signed(Int(pid))
        }
        if let program = actor.program {
            key("program", first: &first)
            string(program)
        }
        if let host = actor.host {
            key("host", first: &first)
            string(host)
        }
        if let editor = actor.editor {
            key("editor", first: &first)
            string(editor)
        }
        raw(UInt8(ascii: "}"))
    }
}
