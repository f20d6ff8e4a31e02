import Glibc

/// Repeats a system call that a signal interrupted (`EINTR`): the store never reports an
/// interruption as a failed read or write. Not for `close`, which on Linux has released the
/// descriptor even when it reports `EINTR` (a repeat could close another thread's new file).
enum Interrupted {
    /// Runs `call` until it returns anything but -1 with `errno` `EINTR`; returns that result,
    /// with `errno` as the last call left it.
    @inline(__always)
    static func retry<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// `mkstemp` on a fresh copy of `pattern` (which ends in `XXXXXX`) until it is not interrupted;
    /// the descriptor (or -1, `errno` set) and the name it created.
    static func makeTemporary(_ pattern: String) -> (fd: Int32, path: String) {
        var template: [CChar] = []
        let fd = retry {
            template = Array(pattern.utf8CString)  // a failed attempt may have changed the Xs
            return template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        }
        return (fd, String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
