#if canImport(Glibc)
import Glibc
#endif

/// The I/O of `booksctl edit` around the editor: a private temporary file and the editor run on
/// it, like `crontab -e`.
enum EditorSession {
    /// Why the temporary file could not be made, read, or the editor run.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Creates `$TMPDIR/booksctl-edit-XXXXXX.txt` (default `/tmp`) with `O_CREAT|O_EXCL`, mode
    /// 0600, and writes `bytes` to it; returns its path.
    static func writeTemporary(_ bytes: [UInt8]) throws(Failure) -> String {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        for _ in 0..<100 {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            let path = "\(directory)/booksctl-edit-\(suffix).txt"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw Failure(description: "cannot create a temporary file in \(directory): \(reason())")
            }
            defer { close(fd) }
            var written = 0
            let ok = bytes.withUnsafeBufferPointer { buffer -> Bool in
                while written < buffer.count {
                    let n = write(fd, buffer.baseAddress! + written, buffer.count - written)
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { return false }
                    written += n
                }
                return true
            }
            guard ok, fsync(fd) == 0 else {
                let why = reason()
                unlink(path)
                throw Failure(description: "cannot write \(path): \(why)")
            }
            return path
        }
        throw Failure(description: "cannot create a temporary file in \(directory): every name tried exists")
    }

    /// The file's bytes.
    static func contents(of path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot read \(path): \(reason())") }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Failure(description: "cannot read \(path): \(reason())") }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// The editor command: `$VISUAL`, else `$EDITOR`, else `vi` (a shell command line: it may
    /// carry arguments, as with git and crontab).
    static var editorCommand: String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return "vi"
    }

    /// Runs `editor PATH` through `/bin/sh` with the terminal inherited and waits for it.
    /// Returns nil when it exited 0, else what went wrong.
    static func runEditor(_ editor: String, on path: String) -> String? {
        let argv = ["/bin/sh", "-c", editor + " \"$1\"", "sh", path]
        let cArgv = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", nil, nil, cArgv, environ)
        guard rc == 0 else { return "cannot run the editor \(editor): \(String(cString: strerror(rc)))" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let signal = status & 0x7f
        if signal != 0 { return "the editor \(editor) was killed by signal \(signal)" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "the editor \(editor) exited with status \(code)"
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
