import BooksPlatform

/// A reusable cache-sized buffer for `FileReader.compare`: glibc hands a freed 256 KiB block back
/// to the system, and taking it again costs fresh page faults (about 0.1 ms) on every comparison.
///
/// The buffers come from a process-wide pool shared by every store (a daemon with 1,000
/// stores holds as many buffers as comparisons run at once — a few — not 1,000 × 256 KiB). A
/// buffer is allocated the first time the pool is empty and kept (at most `poolLimit`).
public final class ReadBuffer: Sendable {
    private let size: Int

    /// Buffers of the default size not in use, shared by every `ReadBuffer` of that size.
    private static let pool = Locked<[[UInt8]]>([])
    /// Most idle buffers the pool keeps.
    static let poolLimit = 8

    /// A buffer of `size` bytes (allocated on first use; the default size is pooled).
    public init(size: Int = FileReader.comparisonChunkSize) {
        self.size = max(size, 1)
    }

    /// Runs `body` with a buffer of this size, owned by the caller for the call.
    public func withBuffer<T: Sendable>(_ body: (UnsafeMutableRawBufferPointer) -> T) -> T {
        let pooled = size == FileReader.comparisonChunkSize
        var bytes = (pooled ? Self.pool.withLock { $0.popLast() } : nil) ?? [UInt8](repeating: 0, count: size)
        let result = bytes.withUnsafeMutableBytes { body($0) }
        if pooled {
            let buffer = bytes
            Self.pool.withLock { if $0.count < Self.poolLimit { $0.append(buffer) } }
        }
        return result
    }
}
