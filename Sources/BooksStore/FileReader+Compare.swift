import BooksCore
import Glibc

extension FileReader {
    /// The size of the chunks `compare` reads: small enough to stay in the CPU's L2 cache while
    /// it is compared, large enough to keep system calls few (256 per 64 MiB).
    public static let comparisonChunkSize = 256 * 1024

    /// Reads `path` and compares it with `old` (the content read last time) as it goes, keeping
    /// only the bytes that differ: the result is the smallest splice turning `old` into the file's
    /// content, or `.unchanged`.
    ///
    /// One pass over the file through a small buffer that stays in cache: no copy of the whole
    /// file is made, so a one-row edit of a 1M-row file costs the read and one comparison, not a
    /// second file-sized buffer (page faults included) plus separate comparison passes. A file
    /// whose size changes while it is read (a writer still at work) is read again whole and
    /// compared with `memcmp`; the same opening checks as `read` apply (no FIFO, regular files
    /// only, `sizeLimit`). `buffer` is the chunk buffer to use (a `ReadBuffer`'s, kept between
    /// calls); without one, a buffer is allocated for the call.
    public static func compare(
        _ path: String, with old: [UInt8], sizeLimit: Int = defaultSizeLimit,
        buffer: UnsafeMutableRawBufferPointer? = nil, allowSymlink: Bool = false
    ) -> FileComparison {
        withRegularFile(path, sizeLimit: sizeLimit, allowSymlink: allowSymlink) { fd, size in
            if let buffer, buffer.count > 0 {
                return compare(fd, size: size, with: old, path: path, sizeLimit: sizeLimit, chunk: buffer)
            }
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: comparisonChunkSize, alignment: 64)
            defer { chunk.deallocate() }
            return compare(fd, size: size, with: old, path: path, sizeLimit: sizeLimit, chunk: chunk)
        }
    }

    /// Compares the open file `fd` of `size` bytes (at the time it was opened) with `old`.
    static func compare(
        _ fd: Int32, size: Int, with old: [UInt8], path: String, sizeLimit: Int,
        chunk: UnsafeMutableRawBufferPointer
    ) -> FileComparison {
        var scan = SpliceScanner(oldCount: old.count, newCount: size)
        let base = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var failure: Int32 = 0
        var sizeChanged = false
        old.withUnsafeBufferPointer { oldBuffer in
            let o = oldBuffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
            while true {
                let n = Glibc.read(fd, base, chunk.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                guard scan.position + n <= size else {
                    sizeChanged = true
                    return
                }
                scan.consume(UnsafeBufferPointer(start: base, count: n), old: o)
            }
        }
        if failure != 0 { return .unavailable(.system(path: path, operation: "read", errno: failure)) }
        if sizeChanged || scan.position != size {
            // A writer changed the size while we read: take the content as it is now.
            switch read(path, sizeLimit: sizeLimit) {
            case .present(let bytes, let identity):
                let splice = ByteSplice(from: old, to: bytes)
                return splice.isEmpty ? .unchanged(identity: identity) : .changed(splice, identity: identity)
            case .missing: return .missing
            case .unavailable(let error): return .unavailable(error)
            }
        }
        var after = stat()
        fstat(fd, &after)
        let identity = FileIdentity(after).withBirthTime(of: fd)
        guard let splice = scan.finish(old: old) else { return .unchanged(identity: identity) }
        return .changed(splice, identity: identity)
    }
}

/// The comparison state of `FileReader.compare`: new content arrives in chunks, in order, and is
/// compared with the old content, first position by position (the common prefix), then — after
/// the first difference — aligned at the end (the common suffix: new offset `i` against old offset
/// `i - delta`). Only new bytes from the first difference to the last difference at the end
/// alignment are kept.
struct SpliceScanner {
    let oldCount: Int
    let newCount: Int
    /// How many new bytes were consumed.
    private(set) var position = 0
    /// The first offset where new and old differ (nil while they agree).
    private(set) var prefix: Int?
    /// New bytes `prefix ..< windowEnd`: everything up to the last difference seen so far.
    private(set) var window: [UInt8] = []
    private var windowEnd = 0

    init(oldCount: Int, newCount: Int) {
        self.oldCount = oldCount
        self.newCount = newCount
    }

    var delta: Int { newCount - oldCount }

    /// Compares the next `bytes` of the new content (`old` holds `oldCount` bytes).
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>, old: UnsafePointer<UInt8>) {
        let n = bytes.count
        guard n > 0, let chunk = bytes.baseAddress else { return }
        var offset = 0
        if prefix == nil {
            let comparable = max(0, min(n, oldCount - position))
            let same = comparable > 0 ? ByteComparison.commonPrefix(chunk, old + position, comparable) : 0
            if same == n {
                position += n
                return
            }
            prefix = position + same
            windowEnd = position + same
            offset = same
        }
        let p = prefix!
        let segmentStart = position + offset
        let segmentEnd = position + n
        // New offsets below `p + delta` have no old counterpart after the prefix: always changed.
        let forcedEnd = p + max(delta, 0)
        var lastChangeEnd = segmentStart < forcedEnd ? min(segmentEnd, forcedEnd) : -1
        let compareStart = max(segmentStart, forcedEnd)
        if compareStart < segmentEnd {
            let length = segmentEnd - compareStart
            let same = ByteComparison.commonSuffix(
                chunk + (compareStart - position), length,
                old + (compareStart - delta), length, limit: length)
            if same < length { lastChangeEnd = segmentEnd - same }
        }
        if lastChangeEnd > windowEnd {
            // New bytes between the window and this chunk matched the old ones at the end
            // alignment: take them from the old content.
            if windowEnd < segmentStart {
                window.append(
                    contentsOf: UnsafeBufferPointer(start: old + (windowEnd - delta), count: segmentStart - windowEnd))
            }
            let from = max(windowEnd, segmentStart)
            window.append(
                contentsOf: UnsafeBufferPointer(start: chunk + (from - position), count: lastChangeEnd - from))
            windowEnd = lastChangeEnd
        }
        position += n
    }

    /// The splice once every new byte was consumed, or nil when old and new are equal.
    func finish(old: [UInt8]) -> ByteSplice? {
        guard let p = prefix else {
            // Every new byte matched: equal, or the new content is a prefix of the old one.
            return newCount == oldCount ? nil : ByteSplice(range: newCount..<oldCount, replacement: [])
        }
        let suffix = newCount - windowEnd
        return ByteSplice(range: p..<(oldCount - suffix), replacement: window)
    }
}
