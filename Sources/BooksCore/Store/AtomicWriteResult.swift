/// What `AtomicFileWriter.write` did.
public struct AtomicWriteResult: Sendable {
    /// The identity of the file written.
    public var identity: FileIdentity
    /// The whole content a process wrote to the replaced version after it was checked (it had
    /// opened the path just before the swap): an edit the caller must apply on top, or lose.
    public var lateEdit: [UInt8]?
    /// False when the file is in place but the `fsync` of its directory failed (twice): the write
    /// is done and visible, yet a power cut may undo the rename. The caller must say so.
    public var directorySynced = true

    /// A result of these fields.
    public init(identity: FileIdentity, lateEdit: [UInt8]?, directorySynced: Bool = true) {
        self.identity = identity
        self.lateEdit = lateEdit
        self.directorySynced = directorySynced
    }
}
