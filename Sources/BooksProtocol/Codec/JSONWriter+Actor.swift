import BooksCore

extension JSONWriter {
    /// `{"uid":…,"user":…,"pid":…,"program":…,"host":…,"editor":…,"via":…,"natsUser":…}`, members
    /// that are nil left out.
    mutating func actor(_ actor: ChangeActor) {
        object { w, first in
            w.member("uid", ifPresent: actor.uid.map { UInt64($0) }, first: &first)
            w.member("user", ifPresent: actor.user, first: &first)
            w.member("pid", ifPresent: actor.pid.map { Int($0) }, first: &first)
            w.member("program", ifPresent: actor.program, first: &first)
            w.member("host", ifPresent: actor.host, first: &first)
            w.member("editor", ifPresent: actor.editor, first: &first)
            w.member("via", ifPresent: actor.via, first: &first)
            w.member("natsUser", ifPresent: actor.natsUser, first: &first)
        }
    }
}
