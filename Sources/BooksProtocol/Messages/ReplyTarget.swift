/// Where the answers to a request go, whatever carried it: a socket connection, a NATS request,
/// an HTTP request or a replica's own write. Made by the transport that received the request,
/// carried with it through the engine and its machines (which never look inside), and read by
/// the engine's channel to hand each answer to its transport.
///
/// Everything a reply needs travels here, not in a table beside it: the protocol version the
/// client speaks (whether its events name their store) and, for the per-store part of a
/// subscription to several stores, the id of that subscription (its one reply was already
/// sent; the part is answered with a `subscribed` or `subscribe-failed` event).
///
/// Two targets are the same client when their transport and number are equal: `version` and
/// `subscribePart` say how to answer, not who.
public struct ReplyTarget: Sendable, Hashable, CustomStringConvertible {
    /// The transport that carried the request.
    public enum Transport: String, Sendable, Hashable {
        /// A connection of the Unix socket server; `number` is its connection number.
        case socket
        /// A NATS request; `number` names its reply subject at the responder.
        case nats
        /// An HTTP request; `number` is its exchange.
        case http
        /// A replica's own local write.
        case replica
    }

    /// The transport that carried the request.
    public var transport: Transport
    /// The client within its transport (never reused by the same transport while the daemon runs).
    public var number: UInt64
    /// The protocol version the client speaks (`ProtocolVersion`).
    public var version: Int
    /// The id of the subscription to several stores this request is the per-store part of, or nil.
    public var subscribePart: String?

    /// A target of `transport`'s client `number`, speaking `version`.
    public init(_ transport: Transport, _ number: UInt64, version: Int = 1, subscribePart: String? = nil) {
        self.transport = transport
        self.number = number
        self.version = version
        self.subscribePart = subscribePart
    }

    /// True when its events name their store (version 2 on).
    public var namesStores: Bool { version >= ProtocolVersion.stores }

    /// `socket#7`, for logs.
    public var description: String { "\(transport.rawValue)#\(number)" }

    /// Same transport and number.
    public static func == (a: ReplyTarget, b: ReplyTarget) -> Bool {
        a.transport == b.transport && a.number == b.number
    }

    /// Hashes transport and number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(transport)
        hasher.combine(number)
    }
}
