import BooksClient
import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Prints a client error to stderr and chooses the exit code.
enum ErrorReporter {
    /// The exit code for `error` (see `ExitCode`).
    static func exitCode(for error: BooksClientError) -> ExitCode {
        if error.isPermissionDenied { return .permissionDenied }
        switch error {
        case .cannotConnect, .socketPathTooLong, .nats: return .cannotConnect
        case .daemon(let e) where e.code == .notFound: return .notFound
        case .daemon(let e) where e.code == .conflict: return .conflict
        // A store not named, or not known: the command line must change.
        case .daemon(let e) where e.code == .storeRequired || e.code == .unknownStore: return .usage
        default: return .daemonError
        }
    }

    /// The message for `error`, with the current values on a conflict.
    static func message(for error: BooksClientError) -> String {
        // Messages come from the daemon and may quote the file: escaped like every other output.
        if case .daemon(let e) = error, e.code == .storeRequired || e.code == .unknownStore {
            // The daemon's message may already end with the stores ("…; stores: a, b"): listed once, here.
            let what =
                e.code == .storeRequired
                ? "name a store with --store NAME (or BOOKS_STORE)"
                : String(e.message.split(separator: "; stores: ", maxSplits: 1).first ?? "")
            let names = (e.stores ?? []).map(TextCell.escape).joined(separator: ", ")
            return "booksctl: \(TextCell.escape(what)); stores: \(names.isEmpty ? "none" : names)"
        }
        if case .cannotConnect(let path, let code) = error {
            // The hint is a line of its own (escaping the whole description would print "\\n").
            let reason = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
            return "booksctl: cannot connect to booksd at \(TextCell.escape(path)): \(reason)\n"
                + BooksClientError.startHint
        }
        guard case .daemon(let e) = error, e.code == .conflict else {
            return "booksctl: \(TextCell.escape("\(error)"))"
        }
        var text = "booksctl: conflict: \(TextCell.escape(e.message))"
        if let current = e.current {
            text += "\ncurrent values"
            if let version = e.currentVersion { text += " (version \(version))" }
            text +=
                """
                :
                  id:     \(TextCell.escape(current.id))
                  name:   \(TextCell.escape(current.name))
                  author: \(TextCell.escape(current.author))
                """
        } else {
            text += "\nthe book no longer exists"
        }
        return text
    }

    /// Reports `error` and returns its exit code.
    static func report(_ error: BooksClientError, to err: OutputWriter = .standardError) -> ExitCode {
        err.line(message(for: error))
        return exitCode(for: error)
    }
}
