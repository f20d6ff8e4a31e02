/// A FIFO of byte chunks waiting to be written to one socket; chunks are shared, not copied
/// (one encoded broadcast is referenced by every subscriber's queue).
struct OutputQueue {
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes of the first chunk already written.
    private(set) var offset = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(_ bytes: [UInt8]) {
        if !bytes.isEmpty { chunks.append(bytes) }
    }

    /// The first chunk (with `offset` bytes already written), if any.
    var first: [UInt8]? { isEmpty ? nil : chunks[head] }

    /// Marks `count` bytes of the first chunk written.
    mutating func consume(_ count: Int) {
        offset += count
        if offset >= chunks[head].count {
            chunks[head] = []
            head += 1
            offset = 0
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
        }
    }
}
