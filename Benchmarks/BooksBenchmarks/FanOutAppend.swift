import BooksTestSupport
import Glibc

/// Appends one row the way `echo >>` does (open `O_APPEND`, write, close).
enum FanOutAppend {
    /// Appends `<new uuid>|name|author`; returns the `CLOCK_MONOTONIC` time `close` returned.
    static func row(path: String, name: String, author: String) -> UInt64 {
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: Stopwatch.now()))
        let id = (0..<4).map { _ in String(generator.next() & 0xffff_ffff, radix: 16) }.joined(separator: "-")
        let line = Array("\(id)|\(name)|\(author)\n".utf8)
        let fd = open(path, O_WRONLY | O_APPEND)
        precondition(fd >= 0, "open \(path)")
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        precondition(written == line.count, "append to \(path)")
        close(fd)
        return Stopwatch.now()
    }
}
