#if canImport(Glibc)
import Glibc
#endif

/// Splits a byte stream into newline-terminated lines: a value-type state machine without I/O.
///
/// Guarantees:
/// - Each complete line is returned once, without its `\n` and without one trailing `\r`
///   (so `\r\n` works). Bytes after the last `\n` stay buffered until more bytes arrive.
/// - A line longer than `maxLineLength` bytes (not counting `\r\n`/`\n`) yields `.tooLong` exactly
///   once, as soon as it is known to be too long; the rest of that line is discarded up to and
///   including the next `\n`. The framer then continues normally.
/// - Memory stays bounded by `maxLineLength + 1` buffered bytes, whatever the input.
/// - Every fed byte is scanned for `\n` once and copied at most twice (no quadratic rescans).
public struct LineFramer: Sendable {
    /// One result of feeding bytes.
    public enum Frame: Sendable, Hashable {
        /// A complete line, without its terminator.
        case line([UInt8])
        /// A line exceeded `maxLineLength`; its bytes are being discarded.
        case tooLong
    }

    /// The default limit: 1 MiB.
    public static let defaultMaxLineLength = 1 << 20

    /// The longest accepted line in bytes, terminator excluded.
    public let maxLineLength: Int
    private var partial: [UInt8] = []
    private var discarding = false

    /// Creates a framer; `maxLineLength` must be positive.
    public init(maxLineLength: Int = LineFramer.defaultMaxLineLength) {
        precondition(maxLineLength > 0, "maxLineLength must be positive")
        self.maxLineLength = maxLineLength
    }

    /// The number of bytes of an incomplete line held back.
    public var bufferedByteCount: Int { partial.count }

    /// True while the rest of an over-long line is being discarded.
    public var isDiscarding: Bool { discarding }

    /// Feeds bytes and returns the frames they complete, in order.
    public mutating func feed(_ bytes: [UInt8]) -> [Frame] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Feeds bytes and returns the frames they complete, in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Frame] {
        var frames: [Frame] = []
        feed(bytes) { frames.append($0) }
        return frames
    }

    /// Feeds bytes and calls `body` for each frame they complete, in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ body: (Frame) throws -> Void) rethrows {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var start = 0
        while start < count {
            if let hit = memchr(base + start, 0x0A, count - start) {
                let nl = base.distance(to: UnsafeRawPointer(hit))
                let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<nl])
                start = nl + 1
                if discarding {
                    discarding = false
                    continue
                }
                var length = partial.count + segment.count
                let lastByte = segment.isEmpty ? partial.last : segment.last
                if lastByte == 0x0D { length -= 1 }
                if length > maxLineLength {
                    partial = []
                    try body(.tooLong)
                    continue
                }
                var line: [UInt8]
                if partial.isEmpty {
                    line = Array(segment)
                } else {
                    line = partial
                    partial = []
                    line.append(contentsOf: segment)
                }
                if line.last == 0x0D { line.removeLast() }
                try body(.line(line))
            } else {
                if !discarding {
                    let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<count])
                    // One extra byte is allowed for a `\r` that a `\n` may still follow.
                    if partial.count + segment.count > maxLineLength + 1 {
                        partial = []
                        discarding = true
                        try body(.tooLong)
                    } else {
                        partial.append(contentsOf: segment)
                    }
                }
                start = count
            }
        }
    }
}
