import BooksProtocol

/// Identifies one accepted client connection for the lifetime of a `SocketServer`.
///
/// Ids are assigned in accept order starting at 1 and are never reused by the same server, so a
/// reply posted for a connection that has since closed can never reach another client.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number.
    public let raw: UInt64

    /// Wraps a raw number.
    public init(raw: UInt64) { self.raw = raw }

    /// `#raw`, for logs.
    public var description: String { "#\(raw)" }
}

extension ReplyTarget {
    /// The target of socket connection `connection`, speaking `version`.
    public init(_ connection: ConnectionID, version: Int = 1) {
        self.init(.socket, connection.raw, version: version)
    }

    /// The socket connection this target is, or nil for another transport's.
    public var socketConnection: ConnectionID? {
        transport == .socket ? ConnectionID(raw: number) : nil
    }
}
