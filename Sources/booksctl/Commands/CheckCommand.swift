import BooksCore

#if canImport(Glibc)
import Glibc
#endif

/// `booksctl check FILE`: parses a book file as booksd would, offline; exit 1 when it has bad lines.
enum CheckCommand {
    static func run(path: String, json: Bool, _ context: CommandContext) -> ExitCode {
        guard let bytes = readFile(path) else {
            context.err.line("booksctl: cannot read \(TextCell.escape(path)): \(String(cString: strerror(errno)))")
            return .usage
        }
        let bad = BookDocument(parsing: bytes).badLines
        let lines = bad.map { json ? BadLineFormat.json($0) : BadLineFormat.text($0, file: path) }
        context.out.write(lines.map { $0 + "\n" }.joined())
        return bad.isEmpty ? .success : .daemonError
    }

    /// The file's bytes; nil (with errno set) when it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
        }
    }
}
