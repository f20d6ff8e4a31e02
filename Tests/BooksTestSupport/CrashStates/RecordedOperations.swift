/// A recorded write path: the operations on the model's inodes, and the real identity each
/// model inode had in the traced run (for content that names inodes, like the append intent
/// record).
public struct RecordedOperations: Sendable {
    public var operations: [FileOperation]
    /// Model inode → the identity the traced process saw for it (`fstat`/`stat` results).
    public var realIdentities: [Int: RealFileIdentity]
}
