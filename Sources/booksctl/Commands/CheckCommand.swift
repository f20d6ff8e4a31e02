import BooksCore

#if canImport(Glibc)
import Glibc
#endif

/// `booksctl check FILE…`: parses book files as booksd would, offline; exit 1 when one has bad
/// lines, 2 when one cannot be read (every file is checked either way).
struct CheckCommand: Equatable {
    /// The files to check (`-`: stdin).
    var paths: [String]
    /// nil: by each file's extension.
    var format: BookFileFormat?
    var json = false

    /// How `-` (stdin) is named in messages.
    static let standardInputName = "<stdin>"

    static func run(paths: [String], format: BookFileFormat?, json: Bool, _ context: CommandContext) -> ExitCode {
        var code = ExitCode.success
        for path in paths {
            let name = path == "-" ? standardInputName : path
            guard let bytes = path == "-" ? readAll(fd: 0) : readFile(path) else {
                context.err.line("booksctl: cannot read \(TextCell.escape(name)): \(String(cString: strerror(errno)))")
                code = .usage
                continue
            }
            let lines = problems(in: bytes, format: format ?? self.format(of: path), name: name, json: json)
            context.out.write(lines.map { $0 + "\n" }.joined())
            if !lines.isEmpty, code == .success { code = .daemonError }
        }
        return code
    }

    /// The format of `path` when none is given, as booksd chooses it: JSON for a name ending in
    /// `.json`; text otherwise and for stdin.
    static func format(of path: String) -> BookFileFormat {
        path != "-" && path.hasSuffix(".json") ? .json : .text
    }

    /// The output lines for the problems of file content `bytes` (none: the file is good).
    static func problems(in bytes: [UInt8], format: BookFileFormat, name: String, json: Bool) -> [String] {
        let text: [UInt8]
        do {
            text = try format.canonicalText(from: bytes)
        } catch {
            let message = error.description
            if json {
                return [
                    JSONLine.object([
                        ("file", JSONLine.string(name)), ("line", "0"), ("code", JSONLine.string("invalid-json")),
                        ("message", JSONLine.string(message)), ("text", JSONLine.string("")),
                    ])
                ]
            }
            return ["\(TextCell.escape(name)): \(TextCell.escape(message))"]
        }
        let bad = BookDocument(parsing: text).badLines
        if json { return bad.map { BadLineFormat.json($0, file: name) } }
        // In a JSON file a row is the N-th book, not a line of the file.
        return bad.map { BadLineFormat.text($0, file: name, book: format == .json) }
    }

    /// The file's bytes; nil (with errno set) when it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd: fd)
    }

    /// Everything `fd` gives until end of file; nil (with errno set) on a read error.
    static func readAll(fd: Int32) -> [UInt8]? {
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
