import BooksClient
import BooksCore
import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `booksctl add NAME AUTHOR` (prints the new id only) and `booksctl add -` (books from stdin,
/// one atomic insert).
struct AddCommand: Equatable {
    /// The books to add: NAME AUTHOR from the command line, or `-`: lines from stdin (one atomic insert).
    var source: Source
    var json = false

    /// Where `add` takes its books from.
    enum Source: Equatable {
        case arguments(name: String, author: String)
        case standardInput
    }

    static func run(
        name: String, author: String, json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        try await insert([BookDraft(name: name, author: author)], json: json, context)
    }

    /// `add -`: parses every line of stdin first; a bad line writes nothing (exit 2).
    static func runFromInput(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let drafts: [BookDraft]
        switch BookInputParser.parse(readStandardInput()) {
        case .success(let parsed): drafts = parsed
        case .failure(let error):
            context.err.line("booksctl: stdin: \(TextCell.escape(error.description))")
            return .usage
        }
        guard !drafts.isEmpty else {
            context.err.line("booksctl: stdin: no books to add")
            return .usage
        }
        do throws(BooksClientError) {
            return try await insert(drafts, json: json, context)
        } catch {
            // booksd hangs up on a request line longer than max_request_bytes: say what probably happened.
            let bytes = drafts.reduce(0) {
                $0 + $1.name.utf8.count + $1.author.utf8.count + ($1.id?.utf8.count ?? 0) + 40
            }
            let code = ErrorReporter.report(error, to: context.err)
            if bytes > 1 << 19, code == .daemonError {
                context.err.line(
                    "booksctl: the request was about \(bytes >> 10) KiB: more than the daemon's max_request_bytes "
                        + "(default 1 MiB) is refused, and then nothing was added: split the input")
            }
            return code
        }
    }

    private static func insert(
        _ drafts: [BookDraft], json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let (books, versions) = WrittenBooks.of(try await client.call(.insert) { $0.books = drafts })
        guard books.count == drafts.count else {
            throw .protocolError(ProtocolError(.internalError, "insert reply lacks the new books"))
        }
        if json {
            for line in WrittenBooks.jsonLines(books, versions: versions) { context.out.line(line) }
        } else {
            context.out.write(books.map { TextCell.escape($0.id) + "\n" }.joined())
        }
        return .success
    }

    /// All of stdin (bytes as UTF-8, invalid sequences replaced).
    static func readStandardInput() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(0, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
