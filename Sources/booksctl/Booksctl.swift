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
        if type(of: invocation.command.value).isLocal {
            return await dispatch(invocation.command, CommandContext(socketPath: "")) { _ throws(BooksClientError) in
                .success
            }
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
        _ command: Command, _ context: CommandContext, subscribe: SubscribeRunner
    ) async -> ExitCode {
        do throws(BooksClientError) {
            return try await command.value.run(context, subscribe: subscribe)
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
