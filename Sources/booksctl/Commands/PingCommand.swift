import BooksClient
import BooksCore
import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `booksctl ping`.
struct PingCommand: Equatable {
    static func run(_ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let clock = ContinuousClock()
        let start = clock.now
        let client = try await context.connect()
        defer { client.close() }
        let point = try await client.ping()
        let elapsed = clock.now - start
        let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        var text = "pong from \(TextCell.escape(client.server ?? "booksd"))"
        if let point { text += " (epoch \(TextCell.escape(point.epoch)), seq \(point.seq))" }
        text += " in \(Int(ms.rounded())) ms"
        context.out.line(text)
        return .success
    }
}
