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

    /// `writeAll(_:_:writer:)` of a whole array.
    static func writeAll(
        _ fd: Int32, _ bytes: [UInt8],
        writer: (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }
    ) -> (written: Int, failure: Int32?) {
        writeAll(fd, bytes[...], writer: writer)
    }

    /// Writes all of `bytes` to `fd` with `writer` (`write(2)`'s shape; a test may fail it), a
    /// short write continued, an interrupted one repeated. Returns how many bytes were written and,
    /// when a write failed, its `errno` (nil: all were written).
    static func writeAll(
        _ fd: Int32, _ bytes: ArraySlice<UInt8>,
        writer: (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }
    ) -> (written: Int, failure: Int32?) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { writer(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return (written, errno)
            }
            written += n
        }
        return (written, nil)
    }

    /// Exactly `count` bytes of `fd` from `offset` (`pread(2)`, short reads continued, interrupted
    /// ones repeated); nil when a read fails or the file ends before.
    static func read(_ fd: Int32, count: Int, at offset: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return nil }
            got += n
        }
        return bytes
    }
}
