import Glibc

/// Output without touching the C `stdout`/`stderr` globals (not concurrency-safe in Swift 6).
enum Console {
    /// Writes a line to standard error.
    static func error(_ message: String) {
        write(2, message + "\n")
    }

    /// Writes a line to standard output, unbuffered (progress stays in order with children's output).
    static func out(_ message: String) {
        write(1, message + "\n")
    }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
        }
    }
}
