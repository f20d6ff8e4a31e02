import Synchronization

/// A reusable cache-sized buffer for `FileReader.compare`, allocated once per store: glibc hands
/// a freed 256 KiB block back to the system, and taking it again costs fresh page faults (about
/// 0.1 ms) on every comparison.
public final class ReadBuffer: Sendable {
    private let storage: Mutex<[UInt8]>

    /// A buffer of `size` bytes.
    public init(size: Int = FileReader.comparisonChunkSize) {
        storage = Mutex([UInt8](repeating: 0, count: max(size, 1)))
    }

    /// Runs `body` with the buffer; callers take turns (the lock is held during `body`).
    public func withBuffer<T: Sendable>(_ body: (UnsafeMutableRawBufferPointer) -> T) -> T {
        storage.withLock { bytes in bytes.withUnsafeMutableBytes { body($0) } }
    }
}
