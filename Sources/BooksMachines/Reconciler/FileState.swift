/// The state of the book file as the daemon last saw it.
public enum FileState: Sendable, Hashable {
    case present
    case missing
    /// Present but unusable (not a regular file, unreadable, invalid JSON …), with the reason.
    case unavailable(String)
    /// Looks destructive (empty, missing, drastically shrunk): waiting for the confirmation period.
    case confirming(String)

    /// The `fileState` word of `status`.
    public var word: String {
        switch self {
        case .present: return "present"
        case .missing: return "missing"
        case .unavailable: return "unavailable"
        case .confirming: return "confirming"
        }
    }

    /// The explanation, when not plainly present.
    public var problem: String? {
        switch self {
        case .present: return nil
        case .missing: return "the file does not exist; it will be picked up when it appears"
        case .unavailable(let reason): return reason
        case .confirming(let what): return "\(what); waiting for it to stand still before believing it"
        }
    }
}
