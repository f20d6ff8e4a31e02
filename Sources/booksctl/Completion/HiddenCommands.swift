import BooksClient
import BooksCore

#if canImport(Glibc)
import Glibc
#endif

/// Commands for booksctl's own tooling, not listed in help:
/// - `__complete ids PREFIX [--socket PATH]`: the ids starting with PREFIX (at most 100), one
///   `ID<TAB>NAME` line each, asked from the daemon — what the completion scripts call.
/// - `__complete stores PREFIX [--socket PATH]`: the store names starting with PREFIX, one per
///   line, asked from the daemon.
/// - `__manpage`: booksctl(1), generated from the catalog (`ManPage`).
///
/// Completion must never disturb the shell: every failure (no daemon, unknown command) prints
/// nothing and exits 0.
enum HiddenCommands {
    case complete(kind: String, prefix: String, socket: String?)
    case manPage

    /// The hidden command `arguments` (without the program name) name, if any.
    static func match(_ arguments: [String]) -> HiddenCommands? {
        switch arguments.first {
        case "__manpage": return .manPage
        case "__complete":
            var rest = Array(arguments.dropFirst())
            var socket: String?
            if let index = rest.firstIndex(of: "--socket"), index + 1 < rest.count {
                socket = rest[index + 1]
                rest.removeSubrange(index...(index + 1))
            }
            return .complete(kind: rest.first ?? "", prefix: rest.count > 1 ? rest[1] : "", socket: socket)
        default: return nil
        }
    }

    /// Runs the command; always succeeds.
    func run() async -> ExitCode {
        switch self {
        case .manPage:
            OutputWriter.standardOutput.write(ManPage.booksctl)
        case .complete("ids", let prefix, let socket):
            for line in await Self.ids(prefix: prefix, socket: socket) { OutputWriter.standardOutput.line(line) }
        case .complete("stores", let prefix, let socket):
            for name in await Self.stores(prefix: prefix, socket: socket) { OutputWriter.standardOutput.line(name) }
        case .complete:
            break
        }
        return .success
    }

    /// `ID<TAB>NAME` for the books whose id starts with `prefix` (tabs and newlines in names escaped).
    static func ids(prefix: String, socket: String?) async -> [String] {
        let path = SocketPathResolver().resolve(explicit: socket).path
        guard let client = try? await BooksClient.connect(socketPath: path, clientName: "booksctl-complete") else {
            return []
        }
        defer { client.close() }
        let query = BookQuery(filter: BookFilter([BookCondition(.id, .prefix, prefix)]), limit: 100)
        guard let page = try? await client.list(query) else { return [] }
        return page.books.map { $0.id + "\t" + TextCell.escape($0.name) }
    }

    /// The names of the daemon's stores that start with `prefix` (none without a daemon).
    static func stores(prefix: String, socket: String?) async -> [String] {
        let path = SocketPathResolver().resolve(explicit: socket).path
        guard let client = try? await BooksClient.connect(socketPath: path, clientName: "booksctl-complete") else {
            return []
        }
        defer { client.close() }
        guard let stores = try? await client.stores() else { return [] }
        return stores.map(\.name).filter { $0.hasPrefix(prefix) }
    }
}
