import BooksClient
import BooksCore

#if canImport(Glibc)
import Glibc
#endif

/// The `booksctl` program: parse, dispatch, map errors to exit codes.
enum Booksctl {
    /// Runs `booksctl` with `arguments` (without the program name); returns the exit code.
    static func run(_ arguments: [String]) async -> ExitCode {
        if let hidden = HiddenCommands.match(arguments) { return await hidden.run() }
        let invocation: Invocation
        var nats: NATSTarget?
        do {
            let scanned = try NATSTarget.extract(from: arguments)
            nats = scanned.target
            // No command at all: the usage, like `--help`, but on stderr and as a usage error.
            if scanned.rest.isEmpty {
                OutputWriter.standardError.write(HelpText.tool)
                return .usage
            }
            invocation = try CommandLineParser.parse(scanned.rest)
        } catch {
            OutputWriter.standardError.line(error.description)
            return .usage
        }
        if case .help(let topic) = invocation.command {
            if let topic, let spec = CommandCatalog.spec(named: topic) {
                OutputWriter.standardOutput.write(HelpText.command(spec))
            } else {
                OutputWriter.standardOutput.write(HelpText.tool)
            }
            return .success
        }
        if case .version = invocation.command {
            OutputWriter.standardOutput.line(BookSyncVersion.line(program: "booksctl"))
            return .success
        }
        if case .completion(let shell) = invocation.command {
            OutputWriter.standardOutput.write(CompletionScript.render(shell))
            return .success
        }
        let stores = invocation.stores.isEmpty ? environmentStore().map { [$0] } ?? [] : invocation.stores
        if var target = nats {
            if let store = stores.first { target.store = store }
            return await NATSCommands.run(invocation.command, target)
        }
        let resolved = BooksClient.defaultSocketPath(explicit: invocation.socket)
        if let warning = resolved.warning { OutputWriter.standardError.line("booksctl: \(TextCell.escape(warning))") }
        let socketPath = resolved.path
        var context = CommandContext(socketPath: socketPath)
        context.store = stores.count == 1 ? stores[0] : nil
        return await dispatch(invocation.command, context) { options throws(BooksClientError) in
            try await SubscribeCommand.run(options, stores: stores, context)
        }
    }

    /// Runs `command` with `context` (the socket's or NATS's requester); `subscribe` runs a
    /// `subscribe`, which differs by transport. Errors become exit codes.
    static func dispatch(
        _ command: Command, _ context: CommandContext,
        subscribe: (SubscribeOptions) async throws(BooksClientError) -> ExitCode
    ) async -> ExitCode {
        do throws(BooksClientError) {
            switch command {
            case .subscribe(let options): return try await subscribe(options)
            case .list(let options): return try await ListCommand.run(options, context)
            case .get(let ids, let json): return try await GetCommand.run(ids: ids, json: json, context)
            case .add(let name, let author, let json):
                return try await AddCommand.run(name: name, author: author, json: json, context)
            case .addFromInput(let json): return try await AddCommand.runFromInput(json: json, context)
            case .update(let options): return try await UpdateCommand.run(options, context)
            case .delete(let ids, let version, let json):
                return try await DeleteCommand.run(ids: ids, expectVersion: version, json: json, context)
            case .status(let json): return try await StatusCommand.run(json: json, context)
            case .check(let paths, let format, let json):
                return CheckCommand.run(paths: paths, format: format, json: json, context)
            case .ping: return try await PingCommand.run(context)
            case .stores(let json): return try await StoresCommand.run(json: json, context)
            case .conflicts(let json): return try await ConflictsCommand.run(json: json, context)
            case .edit: return try await EditCommand.run(context)
            case .resolve(let id, let side, let json):
                return try await ConflictsCommand.resolve(id, take: side, json: json, context)
            case .log(let options): return try await HistoryCommand.log(options, context, subscribe: subscribe)
            case .show(let seq, let json): return try await HistoryCommand.show(seq, json: json, context)
            case .blame(let ids, let json): return try await HistoryCommand.blame(ids, json: json, context)
            case .undo(let seqs, let force, let json):
                return try await HistoryCommand.undo(seqs, force: force, json: json, context)
            case .help, .completion, .version: return .success
            }
        } catch {
            return ErrorReporter.report(error, to: context.err)
        }
    }

    /// `BOOKS_STORE`, when set and not empty.
    static func environmentStore() -> String? {
        guard let value = getenv("BOOKS_STORE").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }

    /// SIGINT/SIGTERM end the program with status 0 (output is unbuffered, nothing is lost);
    /// SIGPIPE is ignored so that a closed pipe shows up as EPIPE.
    static func installSignalHandlers() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
    }
}
