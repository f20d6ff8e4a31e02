import CNats

/// A JetStream key-value bucket (the C library's `kvStore`). Every method blocks on the network.
///
/// `@unchecked Sendable` is safe: the pointer is set once and destroyed in `deinit`; the library
/// allows a `kvStore` to be used from several threads.
public final class KeyValueStore: @unchecked Sendable {
    let pointer: OpaquePointer
    let context: JetStream

    init(pointer: OpaquePointer, context: JetStream) {
        self.pointer = pointer
        self.context = context
    }

    deinit { kvStore_Destroy(pointer) }

    /// Stores `value` under `key`; returns the new revision.
    @discardableResult
    public func put(_ key: String, _ value: [UInt8]) throws(NATSError) -> UInt64 {
        var revision: UInt64 = 0
        try check(kvStore_Put(&revision, pointer, key, value, Int32(value.count)), "putting key \(key)")
        return revision
    }

    /// Stores `value` under `key` only if the key has no value; returns the revision, or nil when
    /// the key already has one (compare-and-set).
    public func create(_ key: String, _ value: [UInt8]) throws(NATSError) -> UInt64? {
        var revision: UInt64 = 0
        let status = kvStore_Create(&revision, pointer, key, value, Int32(value.count))
        if status == NATS_OK { return revision }
        let error = NATSError("creating key \(key)", status)
        if error.text.contains("wrong last sequence") || error.text.contains("10071") { return nil }
        throw error
    }

    /// Stores `value` under `key` only if its current revision is `revision`; returns the new
    /// revision, or nil when the key changed meanwhile (compare-and-set).
    public func update(_ key: String, _ value: [UInt8], revision: UInt64) throws(NATSError) -> UInt64? {
        var next: UInt64 = 0
        let status = kvStore_Update(&next, pointer, key, value, Int32(value.count), revision)
        if status == NATS_OK { return next }
        let error = NATSError("updating key \(key)", status)
        if error.text.contains("wrong last sequence") || error.text.contains("10071") { return nil }
        throw error
    }

    /// Deletes `key` (a delete marker; watchers see a delete).
    public func delete(_ key: String) throws(NATSError) {
        try check(kvStore_Delete(pointer, key), "deleting key \(key)")
    }

    /// The value of `key`, or nil when absent or deleted.
    public func get(_ key: String) throws(NATSError) -> [UInt8]? {
        try entry(key)?.value
    }

    /// The value of `key` with its revision, or nil when absent or deleted.
    public func entry(_ key: String) throws(NATSError) -> (value: [UInt8], revision: UInt64)? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, pointer, key)
        if status == NATS_NOT_FOUND { return nil }
        try check(status, "getting key \(key)")
        defer { kvEntry_Destroy(entry) }
        let length = Int(kvEntry_ValueLen(entry))
        let value = kvEntry_Value(entry).map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        return (value, kvEntry_Revision(entry))
    }

    /// Every key that currently has a value.
    public func keys() throws(NATSError) -> [String] {
        var list = kvKeysList()
        let status = kvStore_Keys(&list, pointer, nil)
        if status == NATS_NOT_FOUND { return [] }
        try check(status, "listing keys")
        defer { kvKeysList_Destroy(&list) }
        return (0..<Int(list.Count)).compactMap { list.Keys[$0].map { String(cString: $0) } }
    }

    /// Every key that has a value, with its value, read in pages (`forEachValue`). Waits at
    /// most `timeoutMilliseconds` for one page.
    public func values(timeoutMilliseconds: Int64 = 5000) throws(NATSError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        try forEachValue(timeoutMilliseconds: timeoutMilliseconds) { key, value in
            if let value { result[key] = value } else { result.removeValue(forKey: key) }
        }
        return result
    }
}
