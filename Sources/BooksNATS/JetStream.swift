import CNats
import Glibc

/// A JetStream context (the C library's `jsCtx`): streams, publishing with acknowledgement,
/// key-value buckets and ordered consumers. Every method blocks on the network (up to the
/// context's timeout): call it from a dedicated thread.
///
/// `@unchecked Sendable` is safe: the pointer is set once in `init` and destroyed only in
/// `deinit`; the library allows a `jsCtx` to be used from several threads; the connection is kept
/// alive by the strong reference.
public final class JetStream: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The connection the context belongs to (kept alive as long as the context).
    public let connection: NATSConnection

    init(pointer: OpaquePointer, connection: NATSConnection) {
        self.pointer = pointer
        self.connection = connection
    }

    deinit { jsCtx_Destroy(pointer) }

    /// The settings of stream `name`, or nil when it does not exist.
    public func streamSettings(_ name: String) throws(NATSError) -> NATSStreamSettings? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetStreamInfo(&info, pointer, name, nil, &code)
        if status == NATS_NOT_FOUND || code.rawValue == 10059 { return nil }
        guard status == NATS_OK, let info, let config = info.pointee.Config else {
            throw NATSError("looking up JetStream stream \(name)", status, jetStream: code)
        }
        defer { jsStreamInfo_Destroy(info) }
        let c = config.pointee
        var subjects: [String] = []
        for i in 0..<Int(c.SubjectsLen) {
            if let subject = c.Subjects[i] { subjects.append(String(cString: subject)) }
        }
        return NATSStreamSettings(
            name: name, subjects: subjects, replicas: Int(c.Replicas), maxAgeSeconds: c.MaxAge / 1_000_000_000,
            maxBytes: c.MaxBytes, duplicateWindowSeconds: c.Duplicates / 1_000_000_000)
    }

    /// The name of the server leading stream `name` in a cluster (nil on a single server or when unknown).
    public func streamLeader(_ name: String) throws(NATSError) -> String? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetStreamInfo(&info, pointer, name, nil, &code)
        guard status == NATS_OK, let info else {
            throw NATSError("looking up JetStream stream \(name)", status, jetStream: code)
        }
        defer { jsStreamInfo_Destroy(info) }
        return info.pointee.Cluster?.pointee.Leader.map { String(cString: $0) }
    }

    /// Creates a file-backed stream with `settings`.
    public func addStream(_ settings: NATSStreamSettings) throws(NATSError) {
        var config = jsStreamConfig()
        try check(jsStreamConfig_Init(&config), "initializing a stream configuration")
        var subjects = settings.subjects.map { UnsafePointer(strdup($0)) }
        defer { for subject in subjects { free(UnsafeMutablePointer(mutating: subject)) } }
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = settings.name.withCString { name in
            subjects.withUnsafeMutableBufferPointer { list in
                config.Name = name
                config.Subjects = list.baseAddress
                config.SubjectsLen = Int32(list.count)
                config.Storage = js_FileStorage
                config.Replicas = Int64(settings.replicas)
                config.MaxAge = settings.maxAgeSeconds * 1_000_000_000
                config.MaxBytes = settings.maxBytes
                config.Duplicates = settings.duplicateWindowSeconds * 1_000_000_000
                return js_AddStream(&info, pointer, &config, nil, &code)
            }
        }
        if let info { jsStreamInfo_Destroy(info) }
        if status != NATS_OK { throw NATSError("creating JetStream stream \(settings.name)", status, jetStream: code) }
    }

    /// Publishes `data` to `subject` with header `Nats-Msg-Id: messageID` and waits for the
    /// stream's acknowledgement. Returns the stream sequence and whether the server dropped the
    /// message as a duplicate of one already stored.
    public func publish(
        _ data: [UInt8], to subject: String, messageID: String, timeoutMilliseconds: Int64
    ) throws(NATSError) -> (sequence: UInt64, duplicate: Bool) {
        var message: OpaquePointer?
        try check(natsMsg_Create(&message, subject, nil, data, Int32(data.count)), "creating a message")
        defer { natsMsg_Destroy(message) }
        try check(natsMsgHeader_Set(message, "Nats-Msg-Id", messageID), "setting Nats-Msg-Id")
        var options = jsPubOptions()
        try check(jsPubOptions_Init(&options), "initializing publish options")
        options.MaxWait = timeoutMilliseconds
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let status = js_PublishMsg(&ack, pointer, message, &options, &code)
        guard status == NATS_OK, let ack else {
            throw NATSError("publishing \(messageID) to \(subject)", status, jetStream: code)
        }
        defer { jsPubAck_Destroy(ack) }
        return (ack.pointee.Sequence, ack.pointee.Duplicate)
    }

    /// The last message stored on `subject` in `stream`, or nil when there is none.
    public func lastMessage(stream: String, subject: String) throws(NATSError) -> NATSMessage? {
        try storedMessage("reading the last message of \(subject) in \(stream)") { message, code in
            js_GetLastMsg(&message, pointer, stream, subject, nil, &code)
        }
    }

    /// The message `get` fetches (a `js_Get…Msg` call), copied; nil when the stream has none
    /// (`NATS_NOT_FOUND`, or JetStream's "no message found", 10037). `doing` names the read in
    /// the error.
    func storedMessage(
        _ doing: @autoclosure () -> String,
        _ get: (inout OpaquePointer?, inout jsErrCode) -> natsStatus
    ) throws(NATSError) -> NATSMessage? {
        var message: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = get(&message, &code)
        if status == NATS_NOT_FOUND || code.rawValue == 10037 { return nil }
        guard status == NATS_OK, let message else { throw NATSError(doing(), status, jetStream: code) }
        defer { natsMsg_Destroy(message) }
        return NATSMessage(copying: message)
    }

    /// Binds to key-value bucket `bucket`, creating it (file storage, one value per key) when it
    /// does not exist.
    public func keyValue(
        _ bucket: String, replicas: Int = 1, maxBytes: Int64 = -1, ttlSeconds: Int64 = 0
    ) throws(NATSError) -> KeyValueStore {
        var store: OpaquePointer?
        let found = js_KeyValue(&store, pointer, bucket)
        if found == NATS_OK, let store { return KeyValueStore(pointer: store, context: self) }
        guard found == NATS_NOT_FOUND else { throw NATSError("opening key-value bucket \(bucket)", found) }
        var config = kvConfig()
        try check(kvConfig_Init(&config), "initializing a bucket configuration")
        let status = bucket.withCString { name in
            config.Bucket = name
            config.History = 1
            config.Replicas = Int32(replicas)
            config.MaxBytes = maxBytes
            config.StorageType = js_FileStorage
            config.TTL = ttlSeconds * 1_000_000_000
            return js_CreateKeyValue(&store, pointer, &config)
        }
        guard status == NATS_OK, let store else { throw NATSError("creating key-value bucket \(bucket)", status) }
        return KeyValueStore(pointer: store, context: self)
    }

    /// An ordered consumer of `subject`: every message in stream order, none twice, re-created by
    /// the library at the next sequence after a reconnect. Read it with `next(timeoutMilliseconds:)`.
    public func orderedSubscription(
        _ subject: String, from start: NATSDeliveryStart
    ) throws(NATSError) -> NATSOrderedSubscription {
        var options = jsSubOptions()
        try check(jsSubOptions_Init(&options), "initializing subscribe options")
        options.Ordered = true
        switch start {
        case .all: options.Config.DeliverPolicy = js_DeliverAll
        case .new: options.Config.DeliverPolicy = js_DeliverNew
        case .sequence(let sequence):
            options.Config.DeliverPolicy = js_DeliverByStartSequence
            options.Config.OptStartSeq = max(1, sequence)
        case .time(let nanoseconds):
            options.Config.DeliverPolicy = js_DeliverByStartTime
            options.Config.OptStartTime = nanoseconds
        }
        var subscription: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = js_SubscribeSync(&subscription, pointer, subject, nil, &options, &code)
        guard status == NATS_OK, let subscription else {
            throw NATSError("subscribing to stream subject \(subject)", status, jetStream: code)
        }
        return NATSOrderedSubscription(pointer: subscription, context: self)
    }
}

/// Where an ordered consumer starts.
public enum NATSDeliveryStart: Sendable, Equatable {
    /// The first message in the stream.
    case all
    /// Only messages stored from now on.
    case new
    /// The message with this stream sequence (or the next one after it).
    case sequence(UInt64)
    /// The first message stored at or after this time (nanoseconds since 1970).
    case time(Int64)
}

extension JetStream {
    /// The message with stream sequence `sequence` in `stream`, or nil when the stream has no
    /// such message (never stored, deleted, or aged out).
    public func message(stream: String, sequence: UInt64) throws(NATSError) -> NATSMessage? {
        try storedMessage("reading message \(sequence) of \(stream)") { message, code in
            js_GetMsg(&message, pointer, stream, sequence, nil, &code)
        }
    }

    /// The names of every stream the account can see.
    public func streamNames() throws(NATSError) -> [String] {
        var list: UnsafeMutablePointer<jsStreamNamesList>?
        var code = jsErrCode(rawValue: 0)
        let status = js_StreamNames(&list, pointer, nil, &code)
        if status == NATS_NOT_FOUND { return [] }
        guard status == NATS_OK, let list else {
            throw NATSError("listing the JetStream streams", status, jetStream: code)
        }
        defer { jsStreamNamesList_Destroy(list) }
        return (0..<Int(list.pointee.Count)).compactMap { list.pointee.List[$0].map { String(cString: $0) } }
    }
}
