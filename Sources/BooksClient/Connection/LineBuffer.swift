/// Splits a byte stream into newline-terminated lines.
///
/// Guarantees: bytes are returned exactly once, in order, without the `\n` (a trailing `\r` is kept);
/// an unterminated tail stays buffered until more bytes arrive.
struct LineBuffer: Sendable {
    private var pending: [UInt8] = []

    /// Appends `bytes` and returns every line they complete.
    mutating func append<C: Collection>(_ bytes: C) -> [[UInt8]] where C.Element == UInt8 {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The bytes of an unterminated last line.
    var remainder: [UInt8] { pending }
}
