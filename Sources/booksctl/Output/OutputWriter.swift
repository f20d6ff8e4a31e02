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
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { exit(0) }
                    return
                }
                offset += n
            }
        }
    }

    /// Writes `bytes` completely (as `write(_:)` does for text).
    func write(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { exit(0) }
                    return
                }
                offset += n
            }
        }
    }

    /// Writes `text` and a newline in one `write(2)`.
    func line(_ text: String) { write(text + "\n") }
}
