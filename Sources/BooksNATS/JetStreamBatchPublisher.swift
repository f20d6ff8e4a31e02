import BooksPlatform
import CNats

/// One message for `JetStreamBatchPublisher.publish(_:timeoutMilliseconds:)`.
public struct NATSOutgoingMessage: Sendable, Equatable {
    /// The subject (a stream's subject, or `$KV.<bucket>.<key>` for a bucket entry).
    public var subject: String
    /// The payload.
    public var data: [UInt8]
    /// `Nats-Msg-Id` (the server drops a second message with the same id within its window), or nil.
    public var messageID: String?
    /// `Nats-Expected-Last-Msg-Id`: the server refuses the message unless the stream's last
    /// message has this id (so a message after a refused one is refused too: no gap), or nil.
    public var expectedLastMessageID: String?
    /// `Nats-Expected-Last-Subject-Sequence`: the server refuses the message unless the last
    /// message on its subject has this stream sequence, or nil.
    public var expectedLastSubjectSequence: UInt64?
    /// A key-value delete marker (`KV-Operation: DEL`) instead of a value.
    public var isKeyValueDelete: Bool

    /// Creates a message.
    public init(
        subject: String, data: [UInt8], messageID: String? = nil, expectedLastMessageID: String? = nil,
        expectedLastSubjectSequence: UInt64? = nil, isKeyValueDelete: Bool = false
    ) {
        self.expectedLastSubjectSequence = expectedLastSubjectSequence
        self.subject = subject
        self.data = data
        self.messageID = messageID
        self.expectedLastMessageID = expectedLastMessageID
        self.isKeyValueDelete = isKeyValueDelete
    }

    /// A put of `value` under `key` in bucket `bucket` (what `KeyValueStore.put` sends).
    public static func keyValuePut(bucket: String, key: String, value: [UInt8]) -> NATSOutgoingMessage {
        NATSOutgoingMessage(subject: "$KV.\(bucket).\(key)", data: value)
    }

    /// A delete of `key` in bucket `bucket` (what `KeyValueStore.delete` sends).
    public static func keyValueDelete(bucket: String, key: String) -> NATSOutgoingMessage {
        NATSOutgoingMessage(subject: "$KV.\(bucket).\(key)", data: [], isKeyValueDelete: true)
    }
}

/// Publishes many messages to JetStream at the cost of one round trip: every message is sent
/// without waiting (`js_PublishMsgAsync`), then the acknowledgements are awaited together.
///
/// Guarantees: messages leave in the order given, on one connection, so one stream stores them
/// in that order; `publish` returns only when every message was acknowledged, and throws when one
/// was refused or not acknowledged in time (the others may or may not have been stored: read the
/// stream again before going on). Blocks: call it from a dedicated thread, one call at a time.
///
/// `@unchecked Sendable` is safe: the context pointer is set once in `init` and destroyed only in
/// `deinit`; the acknowledgement state is behind a `Locked` (the library calls the handler on its
/// own thread); `publish` is documented as one call at a time and only the library touches the
/// context between calls.
public final class JetStreamBatchPublisher: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let acks: Unmanaged<AckCollector>
    /// The connection the context belongs to (kept alive as long as the publisher).
    public let connection: NATSConnection
    /// Messages sent before the acknowledgements of the earlier ones are awaited.
    public let window: Int

    /// A batch publisher on `connection`; at most `window` messages are in flight at once.
    public init(connection: NATSConnection, window: Int = 1024) throws(NATSError) {
        var options = jsOptions()
        try check(jsOptions_Init(&options), "initializing JetStream options")
        let acks = Unmanaged.passRetained(AckCollector())
        options.PublishAsync.MaxPending = Int64(window)
        options.PublishAsync.AckHandlerClosure = acks.toOpaque()
        options.PublishAsync.AckHandler = { _, message, ack, failure, raw in
            let collector = Unmanaged<AckCollector>.fromOpaque(raw!).takeUnretainedValue()
            if let ack { collector.stored(ack.pointee.Sequence) }
            if let failure {
                let text = failure.pointee.ErrText.map { String(cString: $0) }
                collector.failed(
                    NATSError(
                        "publishing to \(natsMsg_GetSubject(message).map { String(cString: $0) } ?? "?")",
                        failure.pointee.Err, jetStream: failure.pointee.ErrCode, serverText: text))
            }
            natsMsg_Destroy(message)
        }
        var context: OpaquePointer?
        let status = natsConnection_JetStream(&context, connection.pointer, &options)
        guard status == NATS_OK, let context else {
            acks.release()
            throw NATSError("opening a JetStream context", status)
        }
        pointer = context
        self.acks = acks
        self.connection = connection
        self.window = window
    }

    deinit {
        jsCtx_Destroy(pointer)
        acks.release()
    }

    /// Sends `messages` in order and waits up to `timeoutMilliseconds` for every acknowledgement
    /// (per window of `window` messages). Throws the first refusal or the timeout. Returns the
    /// highest stream sequence acknowledged (0 when `messages` is empty).
    @discardableResult
    public func publish(_ messages: [NATSOutgoingMessage], timeoutMilliseconds: Int64) throws(NATSError) -> UInt64 {
        var highest: UInt64 = 0
        var start = 0
        while start < messages.count {
            let end = min(messages.count, start + window)
            acks.takeUnretainedValue().reset()
            var sendError: NATSError?
            for message in messages[start..<end] {
                do throws(NATSError) {
                    try send(message, timeoutMilliseconds: timeoutMilliseconds)
                } catch {
                    sendError = error
                    break
                }
            }
            var options = jsPubOptions()
            try check(jsPubOptions_Init(&options), "initializing publish options")
            options.MaxWait = timeoutMilliseconds
            let waited = js_PublishAsyncComplete(pointer, &options)
            if waited != NATS_OK { discardPending() }
            if let sendError { throw sendError }
            if let failure = acks.takeUnretainedValue().firstFailure { throw failure }
            if waited != NATS_OK { throw NATSError("waiting for JetStream acknowledgements", waited) }
            highest = max(highest, acks.takeUnretainedValue().highestSequence)
            start = end
        }
        return highest
    }

    private func send(_ outgoing: NATSOutgoingMessage, timeoutMilliseconds: Int64) throws(NATSError) {
        var message: OpaquePointer?
        try check(
            natsMsg_Create(&message, outgoing.subject, nil, outgoing.data, Int32(outgoing.data.count)),
            "creating a message")
        defer { natsMsg_Destroy(message) }  // no effect once the library took it
        if outgoing.isKeyValueDelete {
            try check(natsMsgHeader_Set(message, "KV-Operation", "DEL"), "setting KV-Operation")
        }
        var options = jsPubOptions()
        try check(jsPubOptions_Init(&options), "initializing publish options")
        options.MaxWait = timeoutMilliseconds
        let status = withOptionalCString(outgoing.messageID) { id in
            withOptionalCString(outgoing.expectedLastMessageID) { last in
                options.MsgId = id
                options.ExpectLastMsgId = last
                options.ExpectLastSubjectSeq = outgoing.expectedLastSubjectSequence ?? 0
                return js_PublishMsgAsync(pointer, &message, &options)
            }
        }
        try check(status, "publishing to \(outgoing.subject)")
    }

    /// Takes back (and drops) the messages still waiting for an acknowledgement.
    private func discardPending() {
        var list = natsMsgList()
        guard js_PublishAsyncGetPendingList(&list, pointer) == NATS_OK else { return }
        natsMsgList_Destroy(&list)
    }
}

/// Runs `body` with `text` as a C string, or with nil.
private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// The acknowledgement outcomes of the current window (written by the library's thread).
final class AckCollector: Sendable {
    private struct State {
        var firstFailure: NATSError?
        var highestSequence: UInt64 = 0
    }
    private let state = Locked(State())

    var firstFailure: NATSError? { state.withLock { $0.firstFailure } }
    var highestSequence: UInt64 { state.withLock { $0.highestSequence } }

    func reset() { state.withLock { $0 = State() } }

    func stored(_ sequence: UInt64) {
        state.withLock { $0.highestSequence = max($0.highestSequence, sequence) }
    }

    func failed(_ error: NATSError) {
        state.withLock { if $0.firstFailure == nil { $0.firstFailure = error } }
    }
}
