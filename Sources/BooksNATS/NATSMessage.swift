import CNats

/// A message received from NATS, copied out of the library's buffers.
public struct NATSMessage: Sendable, Equatable {
    /// The subject it was published to.
    public var subject: String
    /// Where a reply goes (request/reply), or nil.
    public var reply: String?
    /// The payload.
    public var data: [UInt8]
    /// The `Nats-Msg-Id` header, when present.
    public var messageID: String?
    /// The `Books-Actor` header (who a requester says it is), when present.
    public var booksActor: String?
    /// The JetStream stream sequence, for messages delivered by a JetStream consumer or read from
    /// a stream; nil otherwise.
    public var streamSequence: UInt64?
    /// For a message delivered by a JetStream consumer: how many messages of the stream were still
    /// to be delivered after it when the server sent it; nil otherwise.
    public var pending: UInt64?

    /// Creates a message (tests, or a message read from the library).
    public init(
        subject: String, reply: String? = nil, data: [UInt8], messageID: String? = nil, streamSequence: UInt64? = nil,
        pending: UInt64? = nil, booksActor: String? = nil
    ) {
        self.subject = subject
        self.reply = reply
        self.data = data
        self.messageID = messageID
        self.streamSequence = streamSequence
        self.pending = pending
        self.booksActor = booksActor
    }

    /// Copies `message` (the caller still owns and destroys it).
    init(copying message: OpaquePointer) {
        let length = Int(natsMsg_GetDataLength(message))
        var bytes = [UInt8](repeating: 0, count: length)
        if length > 0, let raw = natsMsg_GetData(message) {
            raw.withMemoryRebound(to: UInt8.self, capacity: length) { source in
                bytes.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: source, count: length) }
            }
        }
        var id: UnsafePointer<CChar>?
        let hasID = natsMsgHeader_Get(message, "Nats-Msg-Id", &id) == NATS_OK
        var actor: UnsafePointer<CChar>?
        let hasActor = natsMsgHeader_Get(message, "Books-Actor", &actor) == NATS_OK
        var metadata: UnsafeMutablePointer<jsMsgMetaData>?
        var sequence: UInt64?
        var pending: UInt64?
        if natsMsg_GetMetaData(&metadata, message) == NATS_OK, let metadata {
            sequence = metadata.pointee.Sequence.Stream
            pending = metadata.pointee.NumPending
            jsMsgMetaData_Destroy(metadata)
        } else {
            let direct = natsMsg_GetSequence(message)
            if direct > 0 { sequence = direct }
        }
        self.init(
            subject: natsMsg_GetSubject(message).map { String(cString: $0) } ?? "",
            reply: natsMsg_GetReply(message).map { String(cString: $0) },
            data: bytes, messageID: hasID ? id.map { String(cString: $0) } : nil, streamSequence: sequence,
            pending: pending, booksActor: hasActor ? actor.map { String(cString: $0) } : nil)
    }
}
