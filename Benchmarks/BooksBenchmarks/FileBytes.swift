import Glibc

/// Whole-file reads and writes with plain system calls (no Foundation).
enum FileBytes {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The file's content, read with one allocation of exactly its size.
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(description: "fstat \(path)") }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = Glibc.read(fd, buffer.baseAddress! + done, size - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    failed = n < 0
                    break
                }
                done += n
            }
            count = done
        }
        if failed { throw Failure(description: "read \(path): \(String(cString: strerror(errno)))") }
        return bytes
    }

    /// The content of a file whose size `stat` does not report (e.g. under /proc).
    static func readStream(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "open \(path)") }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Replaces the file's content (write to a temporary file, then rename).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "open \(temporary): \(String(cString: strerror(errno)))") }
        let ok = writeAll(bytes, to: fd)
        close(fd)
        guard ok, rename(temporary, path) == 0 else { throw Failure(description: "write \(path) failed") }
    }

    /// Writes all of `bytes` to `fd` (retrying short writes and `EINTR`); false on an error.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var done = 0
        return bytes.withUnsafeBufferPointer { buffer -> Bool in
            while done < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// Creates `path` and its parents if missing.
    static func makeDirectory(_ path: String) {
        let utf8 = Array(path.utf8)
        for (k, byte) in utf8.enumerated() where k > 0 && byte == UInt8(ascii: "/") {
            mkdir(String(decoding: utf8[..<k], as: UTF8.self), 0o755)
        }
        mkdir(path, 0o755)
    }
}
