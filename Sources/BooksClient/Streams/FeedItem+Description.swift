import BooksCore
import BooksProtocol

extension FeedChange: CustomStringConvertible {
    /// `change 7 (client, 2026-12-01T12:00:00.000Z): 1 inserted, 0 updated, 0 deleted`, then the
    /// change set's book lines.
    public var description: String {
        let when = time.map { ", " + ISO8601.format($0) } ?? ""
        return "change \(seq) (\(source.rawValue)\(when)): \(changes)"
    }
}

extension FeedSnapshot: CustomStringConvertible {
    /// `snapshot at 3 (epoch E): 2 books`, then up to `ChangeSet.describedBookLimit` book lines.
    public var description: String {
        var lines = ["snapshot at \(seq) (epoch \(epoch)): \(books.count) book\(books.count == 1 ? "" : "s")"]
        lines += books.prefix(ChangeSet.describedBookLimit).map { "  \($0)" }
        if books.count > ChangeSet.describedBookLimit {
            lines.append("  … and \(books.count - ChangeSet.describedBookLimit) more")
        }
        return lines.joined(separator: "\n")
    }
}

extension FeedItem: CustomStringConvertible {
    /// One readable line (a snapshot or change adds one line per book).
    public var description: String {
        switch self {
        case .snapshot(let snapshot): return snapshot.description
        case .change(let change): return change.description
        case .resyncRequired(let epoch, let seq, let reason):
            return "resync required at \(seq) (epoch \(epoch)): \(reason)"
        case .heartbeat(let point): return "heartbeat at \(point.seq) (epoch \(point.epoch))"
        case .shutdown(let reason): return "shutdown" + (reason.map { ": \($0)" } ?? "")
        case .subscribed(let point): return "subscribed at \(point.seq) (epoch \(point.epoch))"
        case .conflict(let notice):
            let c = notice.conflict
            let state = notice.resolved.map { "settled (\($0.rawValue))" } ?? "recorded"
            return "conflict \(c.id) \(state) at \(notice.seq): book \(c.conflict.id), \(c.conflict.kind.rawValue)"
        }
    }
}

extension MirrorUpdate: CustomStringConvertible {
    /// `live 7 (client, time): 1 inserted, …` with the change set's book lines.
    public var description: String {
        let who = [source?.rawValue, time.map(ISO8601.format)].compactMap { $0 }.joined(separator: ", ")
        let head = "\(origin.rawValue) \(seq)" + (who.isEmpty ? "" : " (\(who))")
        if origin == .resyncRequired { return head + ": " + (reason ?? "") }
        return head + ": \(changes)"
    }
}

extension VersionedBook: CustomStringConvertible {
    /// The book followed by `v<version>`.
    public var description: String { "\(book) v\(version)" }
}
