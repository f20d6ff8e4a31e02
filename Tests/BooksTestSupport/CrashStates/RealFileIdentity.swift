/// A real file's identity (`st_dev`, `st_ino`) as the traced process saw it.
public struct RealFileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
