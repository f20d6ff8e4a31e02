import CNats

extension KeyValueStore {
    /// The bucket's name.
    public var name: String { kvStore_Bucket(pointer).map { String(cString: $0) } ?? "" }

    /// Reads every key's current value in pages of at most `pageSize` entries (a pull consumer
    /// of the bucket's stream, from its first message): the server sends the next page only when
    /// it is asked for, so at most one page is ever on the way and the connection's pings and
    /// other requests pass between pages, whatever the bucket's size (a watcher of the whole
    /// bucket has the server push all of it at once). `entry` hears each key with its value, or
    /// nil for a delete marker (a key deleted before or during the read), in the stream's order:
    /// a key may be heard more than once (a bucket keeping older revisions, a write during the
    /// read), the last one heard being its current value. `betweenPages` runs after each page
    /// (the caller's chance to keep a lease alive); an error it throws ends the read.
    ///
    /// Memory: one page. Returns how many pages were read. Blocks on the network; waits at most
    /// `timeoutMilliseconds` for one page.
    @discardableResult
    public func forEachValue(
        pageSize: Int = 1024, timeoutMilliseconds: Int64 = 5000,
        betweenPages: () throws(NATSError) -> Void = {},
        _ entry: (_ key: String, _ value: [UInt8]?) -> Void
    ) throws(NATSError) -> Int {
        let bucket = name
        let stream = "KV_\(bucket)"
        let keyPrefix = "$KV.\(bucket)."
        var options = jsSubOptions()
        try check(jsSubOptions_Init(&options), "initializing subscribe options")
        var code = jsErrCode(rawValue: 0)
        var subscription: OpaquePointer?
        let status = stream.withCString { streamName in
            options.Stream = streamName
            // Every message of the bucket's stream in order rather than the last per key: a
            // bucket of booksd keeps one per key anyway, and nats-server computes "last per
            // subject" of a million keys inside the requesting connection's read loop (5-9 s
            // without answering its pings: the client took the connection for dead).
            options.Config.DeliverPolicy = js_DeliverAll
            options.Config.AckPolicy = js_AckAll
            options.Config.MaxAckPending = Int64(pageSize * 2)
            options.Config.InactiveThreshold = 30_000_000_000
            return js_PullSubscribe(&subscription, context.pointer, "\(keyPrefix)>", nil, nil, &options, &code)
        }
        guard status == NATS_OK, let subscription else {
            throw NATSError("reading the values of bucket \(bucket)", status, jetStream: code)
        }
        defer {
            _ = natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        try check(natsSubscription_GetConsumerInfo(&info, subscription, nil, &code), "reading the bucket's consumer")
        let total = info?.pointee.NumPending ?? 0
        jsConsumerInfo_Destroy(info)
        if total == 0 { return 0 }
        var pages = 0
        while true {
            var list = natsMsgList()
            let fetched = natsSubscription_Fetch(&list, subscription, Int32(pageSize), timeoutMilliseconds, &code)
            guard fetched == NATS_OK else {
                throw NATSError("reading page \(pages + 1) of bucket \(bucket)", fetched, jetStream: code)
            }
            defer { natsMsgList_Destroy(&list) }
            pages += 1
            var pendingAfter: UInt64 = 1
            for index in 0..<Int(list.Count) {
                guard let message = list.Msgs[index] else { continue }
                let subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
                guard subject.hasPrefix(keyPrefix) else { continue }
                let key = String(subject.dropFirst(keyPrefix.count))
                var operation: UnsafePointer<CChar>?
                if natsMsgHeader_Get(message, "KV-Operation", &operation) == NATS_OK, operation != nil {
                    entry(key, nil)  // DEL or PURGE
                } else {
                    entry(key, Self.data(of: message))
                }
                var metadata: UnsafeMutablePointer<jsMsgMetaData>?
                if natsMsg_GetMetaData(&metadata, message) == NATS_OK, let metadata {
                    pendingAfter = metadata.pointee.NumPending
                    jsMsgMetaData_Destroy(metadata)
                }
                if index == Int(list.Count) - 1 { _ = natsMsg_Ack(message, nil) }  // acks the whole page
            }
            if pendingAfter == 0 { return pages }
            try betweenPages()
        }
    }

    /// A copy of the data of `message`.
    private static func data(of message: OpaquePointer) -> [UInt8] {
        let length = Int(natsMsg_GetDataLength(message))
        guard length > 0, let raw = natsMsg_GetData(message) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: length))
    }
}
