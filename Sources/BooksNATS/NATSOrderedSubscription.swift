import CNats

/// A synchronous ordered JetStream consumer (see `JetStream.orderedSubscription`).
///
/// `@unchecked Sendable` is safe: the pointer is set once and destroyed in `deinit`; `next` is
/// meant for one reading thread, and the library locks the subscription internally.
public final class NATSOrderedSubscription: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let context: JetStream

    init(pointer: OpaquePointer, context: JetStream) {
        self.pointer = pointer
        self.context = context
    }

    deinit {
        _ = natsSubscription_Unsubscribe(pointer)
        natsSubscription_Destroy(pointer)
    }

    /// The next message, or nil when none came within `timeoutMilliseconds`. Blocks.
    public func next(timeoutMilliseconds: Int64) throws(NATSError) -> NATSMessage? {
        var message: OpaquePointer?
        let status = natsSubscription_NextMsg(&message, pointer, timeoutMilliseconds)
        if status == NATS_TIMEOUT { return nil }
        guard status == NATS_OK, let message else { throw NATSError("reading the stream", status) }
        defer { natsMsg_Destroy(message) }
        return NATSMessage(copying: message)
    }
}
