import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import Testing

/// Records a `BooksClient` feed in the background; tests wait for conditions on what arrived.
final class FeedRecorder: Sendable {
    let items = Locked<[FeedItem]>([])
    let finished = Locked<String?>(nil)
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    init(_ stream: BooksFeed<FeedItem>) {
        let t = Task { [self] in
            do {
                for try await item in stream { self.items.withLock { $0.append(item) } }
                self.finished.withLock { $0 = "finished" }
            } catch {
                self.finished.withLock { $0 = "error: \(error)" }
            }
        }
        task.withLock { $0 = t }
    }

    func cancel() { task.withLock { $0?.cancel() } }

    var snapshot: [FeedItem] { items.withLock { $0 } }

    /// The `change` items received.
    var changes: [FeedChange] {
        snapshot.compactMap { if case .change(let c) = $0 { return c } else { return nil } }
    }

    /// The highest seq of a received change (or snapshot).
    var lastSeq: UInt64 {
        snapshot.reduce(0) { acc, item in
            switch item {
            case .change(let c): return max(acc, c.seq)
            case .snapshot(let s): return max(acc, s.seq)
            default: return acc
            }
        }
    }

    /// Waits until `condition` holds on the items; fails the test on timeout.
    @discardableResult
    func wait(
        _ what: String, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([FeedItem]) -> Bool
    ) async -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let ok = await eventually(timeout: seconds) { condition(self.snapshot) }
        if !ok { Issue.record("timed out waiting for \(what); got \(snapshot)", sourceLocation: sourceLocation) }
        return ok
    }

    func waitForSeq(
        _ seq: UInt64, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await wait("seq \(seq)", timeout: timeout, sourceLocation: sourceLocation) { _ in self.lastSeq >= seq }
    }
}

/// The seq of a feed item, if it has one.
func feedSeq(_ item: FeedItem) -> UInt64? {
    switch item {
    case .change(let c): return c.seq
    case .snapshot(let s): return s.seq
    case .resyncRequired(_, let seq, _): return seq
    case .heartbeat(let p), .subscribed(let p): return p.seq
    case .conflict(let n): return n.seq
    case .shutdown: return nil
    }
}
