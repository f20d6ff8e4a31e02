#if canImport(Glibc)
import Glibc
#endif

/// Writes text straight to a file descriptor with `write(2)`: nothing is buffered, so every call
/// reaches a pipe at once (`subscribe --json` relies on this).
struct OutputWriter: Sendable {
    let fd: Int32

    static let standardOutput = OutputWriter(fd: 1)
    static let standardError = OutputWriter(fd: 2)

    /// True when the descriptor is a terminal.
    var isTerminal: Bool { isatty(fd) == 1 }

    /// Writes `text` completely (retrying on EINTR and short writes). If the reader went away
    /// (EPIPE, e.g. `| head`), the process exits with 0: nobody is listening any more.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { if !writeAll($0) { exit(0) } }
    }

    /// Writes `bytes` completely (as `write(_:)` does for text).
    func write(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { if !writeAll($0) { exit(0) } }
    }

    /// Writes `text` completely, stopping quietly when the reader went away (EPIPE): for a child's
    /// stdin, which it need not read.
    func writeIgnoringClosedPipe(_ text: String) {
        var text = text
        text.withUTF8 { _ = writeAll($0) }
    }

    /// Writes `buffer` completely, retrying on EINTR and short writes; false when the reader went
    /// away (EPIPE). Other errors end the write silently (true: there is nobody to tell).
    private func writeAll(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno != EPIPE
            }
            offset += n
        }
        return true
    }

    /// Writes `text` and a newline in one `write(2)`.
    func line(_ text: String) { write(text + "\n") }
}
