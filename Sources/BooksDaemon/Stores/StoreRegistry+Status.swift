import BooksPlatform
import BooksProtocol

extension SystemdNotifier {
    /// Sends `STATUS=line` unless `last` holds the same line; records it in `last`.
    func statusIfChanged(_ line: String, last: borrowing Locked<String?>) {
        let changed = last.withLock { previous in
            defer { previous = line }
            return previous != line
        }
        if changed { _ = try? status(line) }
    }
}

/// systemd's `STATUS=` for all stores.
extension StoreRegistry {
    /// The `STATUS=` line: with one store, that store's own line (as a single-file daemon
    /// shows); with several, counts by state, books, bad lines and subscribers, and the names of
    /// stores that are not present (up to 5).
    static func summaryLine(_ statuses: [StoreInfo], subscribers: Int, single: String?) -> String {
        if statuses.count == 1, let single { return single }
        guard !statuses.isEmpty else { return "no store served yet, \(subscribers) subscribers" }
        var counts: [String: Int] = [:]
        for status in statuses { counts[status.state, default: 0] += 1 }
        let states = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let books = statuses.reduce(0) { $0 + $1.bookCount }
        let bad = statuses.reduce(0) { $0 + $1.badLines }
        var line = "\(statuses.count) stores (\(states)): \(books) books, \(bad) bad lines, \(subscribers) subscribers"
        let troubled = statuses.filter { $0.state != "present" }.map(\.name)
        if !troubled.isEmpty {
            let shown = troubled.prefix(5).joined(separator: ", ")
            line += "; not present: \(shown)\(troubled.count > 5 ? " and \(troubled.count - 5) more" : "")"
        }
        return line
    }

    /// Sends the summary to systemd unless it equals the last one sent (`single` is the calling
    /// engine's own line).
    func publishStatus(single: String, subscribers: Int) {
        let notifier = environment.withLock { $0.notifier }
        guard notifier.isEnabled else { return }
        let line = Self.summaryLine(statuses(), subscribers: subscribers, single: single)
        notifier.statusIfChanged(line, last: lastStatusLine)
    }

    /// Sends the summary again unconditionally (after `READY=1`).
    public func republishStatus() {
        lastStatusLine.withLock { $0 = nil }
        if let engine = engines.first { engine.republishStatus() } else { publishStatus(single: "", subscribers: 0) }
    }
}
