import CNats

/// A subscription with a message handler; `cancel()` (or the last reference going away) ends it.
///
/// `@unchecked Sendable` is safe: the pointer is set once in `init`; `cancel` is idempotent under
/// the library's own locking (`natsSubscription_Unsubscribe` on a closed subscription returns an
/// error, which is ignored); the handler box is immutable and never released (see `deinit`).
public final class NATSSubscription: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let box: Unmanaged<MessageBox>?

    init(pointer: OpaquePointer, box: Unmanaged<MessageBox>?) {
        self.pointer = pointer
        self.box = box
    }

    deinit {
        _ = natsSubscription_Unsubscribe(pointer)
        natsSubscription_Destroy(pointer)
        // A handler call may still be running on a library thread, so its box (retained at
        // subscribe) is deliberately never released: a few bytes per subscription, and
        // subscriptions live as long as the process in practice.
    }

    /// Stops delivery; later messages are dropped.
    public func cancel() {
        _ = natsSubscription_Unsubscribe(pointer)
    }
}
