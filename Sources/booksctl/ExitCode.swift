/// `booksctl`'s exit codes (documented in `--help`).
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case daemonError = 1
    case usage = 2
    case cannotConnect = 3
    case permissionDenied = 4
    case notFound = 5
    case conflict = 6

    /// One line of the help's exit-code table.
    var help: String {
        switch self {
        case .success: return "success"
        case .daemonError: return "error reported by the daemon (or the connection broke)"
        case .usage: return "usage error (bad command line)"
        case .cannotConnect:
            return
                "cannot connect to booksd (is it running? `booksd --file books.txt` or `systemctl start booksd.socket`)"
        case .permissionDenied: return "permission denied (socket or write access)"
        case .notFound: return "no book with that id"
        case .conflict: return "conflict: the book changed since --expect-version (current values printed)"
        }
    }
}
