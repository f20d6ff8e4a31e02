import BooksCore

extension JSONWriter {
    /// `{"uid":…,"user":…,"pid":…,"program":…,"host":…,"editor":…,"via":…,"natsUser":…}`, members
    /// that are nil left out.
    mutating func actor(_ actor: ChangeActor) {
        var first = true
        raw(UInt8(ascii: "{"))
        if let uid = actor.uid {
            key("uid", first: &first)
            unsigned(UInt64(uid))
        }
        member("user", actor.user, first: &first)
        if let pid = actor.pid {
            key("pid", first: &first)
            signed(Int(pid))
        }
        member("program", actor.program, first: &first)
        member("host", actor.host, first: &first)
        member("editor", actor.editor, first: &first)
        member("via", actor.via, first: &first)
        member("natsUser", actor.natsUser, first: &first)
        raw(UInt8(ascii: "}"))
    }

    /// `"name":"value"` when `value` is not nil.
    @inline(__always) private mutating func member(_ name: StaticString, _ value: String?, first: inout Bool) {
        guard let value else { return }
        key(name, first: &first)
        string(value)
    }
}
