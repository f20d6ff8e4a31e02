/// Where an applied change set came from.
public enum ChangeSource: String, Sendable, Hashable, Codable {
    /// An edit of the file by a person or a tool, seen by the watcher.
    case file
    /// A write requested by a client through the daemon.
    case client
    /// A write requested over NATS (the store's `api` subject).
    case nats
    /// A `booksctl undo` (the `undo` op): the inverse of earlier change sets, written like a
    /// client write.
    case undo
}
