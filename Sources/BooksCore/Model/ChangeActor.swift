/// Who made a change set, as far as the daemon can tell: every field is optional, set only when
/// known.
///
/// A socket client: `uid`, `user`, `pid` and `program` (the kernel's `SO_PEERCRED` at connect and
/// `/proc/PID/comm`: they cannot be forged by the client). A NATS request: what the requester
/// declared about itself in its `Books-Actor` header (`uid`, `user`, `pid`, `program`, `host`,
/// `natsUser`), marked `via` `nats` — the client's word, not checked by anyone (NATS does not
/// tell a subscriber who published); a request without that header: `program` `nats`. A hand edit: the editor's own evidence when there is some
/// (``EditorEvidence``: `user`, `host`, `pid`, `editor`), else the file's owner (`uid`, `user`)
/// and `editor` `unknown` — an owner is a hint, not proof of who typed.
public struct ChangeActor: Sendable, Hashable, Codable {
    /// The user id.
    public var uid: UInt32?
    /// The user name.
    public var user: String?
    /// The process id.
    public var pid: Int32?
    /// The program's name (`/proc/PID/comm`, at most 15 bytes), or `nats`.
    public var program: String?
    /// The machine the editor ran on (from its swap or lock file).
    public var host: String?
    /// The editor (from its swap or lock file), or `unknown`.
    public var editor: String?
    /// `nats` when the other fields are what a NATS requester declared about itself (its
    /// `Books-Actor` header), not what the kernel or a file said; nil otherwise.
    public var via: String?
    /// The NATS user the requester said it connected as (its user name, or its credentials
    /// file's name); declared like the rest of a `via` `nats` actor.
    public var natsUser: String?

    /// Creates an actor; fields not known stay nil.
    public init(
        uid: UInt32? = nil, user: String? = nil, pid: Int32? = nil, program: String? = nil, host: String? = nil,
        editor: String? = nil, via: String? = nil, natsUser: String? = nil
    ) {
        self.uid = uid
        self.user = user
        self.pid = pid
        self.program = program
        self.host = host
        self.editor = editor
        self.via = via
        self.natsUser = natsUser
    }

    /// The actor of a NATS request that did not say who sent it (no `Books-Actor` header).
    public static let nats = ChangeActor(program: "nats")

    /// A hand edit: the editor's evidence when there is some, else the file's owner and editor
    /// `unknown`.
    public static func fileEdit(evidence: EditorEvidence?, owner: UInt32?, ownerName: String?) -> ChangeActor {
        if let evidence {
            return ChangeActor(user: evidence.user, pid: evidence.pid, host: evidence.host, editor: evidence.editor)
        }
        return ChangeActor(uid: owner, user: ownerName, editor: "unknown")
    }

    /// What all of `actors` have in common (one change set may commit several clients' writes):
    /// each field kept when every actor has the same value. Nil when `actors` is empty.
    public static func common(_ actors: [ChangeActor]) -> ChangeActor? {
        guard var result = actors.first else { return nil }
        for actor in actors.dropFirst() where actor != result {
            if actor.uid != result.uid { result.uid = nil }
            if actor.user != result.user { result.user = nil }
            if actor.pid != result.pid { result.pid = nil }
            if actor.program != result.program { result.program = nil }
            if actor.host != result.host { result.host = nil }
            if actor.editor != result.editor { result.editor = nil }
            if actor.via != result.via { result.via = nil }
            if actor.natsUser != result.natsUser { result.natsUser = nil }
        }
        return result
    }

    /// `user` (else `uid N`), then `pid`, then `program` or `editor`, `@host`, and for a declared
    /// NATS actor `via nats` (and `as NATSUSER`): for one line of text, e.g. `alice booksctl[4242]`,
    /// `bob vim[77]@laptop` or `carol booksctl[88]@web1 via nats as ops`.
    public var summary: String {
        var text = user ?? uid.map { "uid \($0)" } ?? ""
        let tool = program ?? editor
        if let tool {
            text += (text.isEmpty ? "" : " ") + tool + (pid.map { "[\($0)]" } ?? "")
        } else if let pid {
            text += (text.isEmpty ? "" : " ") + "pid \(pid)"
        }
        if let host { text += "@" + host }
        if text.isEmpty { text = "unknown" }
        if let via { text += " via " + via }
        if let natsUser { text += " as " + natsUser }
        return text
    }
}

/// What an editor's swap or lock file says about who is editing a file (vim's `.swp`, Emacs's
/// `.#name`): filled in by the daemon when it finds such a file at the time of an edit.
public struct EditorEvidence: Sendable, Hashable, Codable {
    /// The user name the editor recorded.
    public var user: String?
    /// The machine the editor runs on.
    public var host: String?
    /// The editor's process id.
    public var pid: Int32?
    /// The editor (`vim`, `emacs`, …).
    public var editor: String?

    /// Creates evidence.
    public init(user: String? = nil, host: String? = nil, pid: Int32? = nil, editor: String? = nil) {
        self.user = user
        self.host = host
        self.pid = pid
        self.editor = editor
    }
}
