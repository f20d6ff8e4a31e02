import BooksPlatform
import Observation

/// An observable live list: the books matching a query, kept current from the daemon's feed —
/// what `@Query` gives a SwiftUI view, for any Swift program on Linux.
///
/// ```swift
/// let list = LiveBookList(BookQuery(sort: BookSort(.name), limit: 20))
/// withObservationTracking { print(list.books) } onChange: { print("changed") }
/// ```
///
/// Guarantees:
/// - `books` is the query's result (filter, sort, offset, limit) over the daemon's books at one
///   position of its history; it changes only when the result changes (one observation per change).
/// - Disconnects (the daemon restarting, crashing, a lost connection) are survived: the list keeps
///   its last `books`, `connection` says `.reconnecting`, and once reconnected it resumes from its
///   position (missed changes are replayed, or diffed from a new snapshot), so it never skips or
///   duplicates a change. Only an error reconnecting cannot fix ends it (`.failed`).
/// - It starts at once (waiting for the daemon if it is not running yet) and runs until `stop()` or
///   until it is released.
/// - Bounded memory besides the books: a slow main actor sees only the latest result (intermediate
///   results are skipped, never queued).
///
/// Lives on the main actor, like a view model: the program must let the main actor run (an `async`
/// `main`, or `@main` with an async `main()`); `books` and `connection` change there.
@MainActor
@Observable
public final class LiveBookList {
    /// The query whose results `books` holds.
    public let query: BookQuery
    /// The daemon's socket.
    public let socketPath: String
    /// The query's current result (empty until `isLoaded`).
    public private(set) var books: [Book] = []
    /// True once the first result arrived.
    public private(set) var isLoaded = false
    /// Where the list stands with the daemon.
    public private(set) var connection: LiveConnectionState = .connecting

    @ObservationIgnored private let runner: Runner

    /// Starts following `query` on the daemon at `socketPath` (default: the socket `booksctl`
    /// would use, `BooksClient.defaultSocketPath()`), reconnecting with `backoff`.
    public init(
        _ query: BookQuery = BookQuery(), socketPath: String? = nil, backoff: ReconnectBackoff = ReconnectBackoff(),
        clientName: String = "LiveBookList"
    ) {
        self.query = query
        self.socketPath = socketPath ?? BooksClient.defaultSocketPath().path
        let inbox = LiveListInbox()
        let subscription = ResilientSubscription(
            socketPath: self.socketPath, filter: query.filter, backoff: backoff, waitForDaemon: true,
            clientName: clientName, onStatus: { inbox.post(status: $0) })
        let driver = subscription.drive(
            initialState: LiveQueryState(query: query), resumePoint: { $0.mirror.resumePoint },
            step: { state, item in state.apply(item) }, emit: { inbox.post(books: $0) },
            finish: { inbox.post(end: $0) })
        runner = Runner(driver: driver)
        let applier = Task { @MainActor [weak self] in
            for await _ in inbox.wakeUps {
                guard let self else { return }
                self.apply(inbox.take())
            }
            self?.apply(inbox.take())
        }
        runner.keep(applier)
    }

    deinit { runner.cancel() }

    /// Stops following the daemon: `connection` becomes `.stopped`, `books` keeps its values.
    public func stop() {
        runner.cancel()
        connection = .stopped
    }

    private func apply(_ pending: LiveListInbox.Pending) {
        var state = connection
        for status in pending.statuses { state = state.after(status) }
        if let end = pending.end, state != .stopped { state = end.map(LiveConnectionState.failed) ?? .stopped }
        if state != connection { connection = state }
        if let books = pending.books {
            if books != self.books { self.books = books }
            if !isLoaded { isLoaded = true }
        }
    }

    /// The tasks behind a list, cancelled together (from `stop()` or `deinit`).
    private final class Runner: Sendable {
        private let tasks: Locked<[Task<Void, Never>]>

        init(driver: Task<Void, Never>) { tasks = Locked([driver]) }

        func keep(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }

        func cancel() { tasks.withLock { for task in $0 { task.cancel() } } }
    }
}

extension LiveBookList {
    /// Waits until `condition` holds on the list, re-checking after every change (observation, no
    /// polling); returns false if `timeout` passes first.
    public func wait(
        timeout: Duration = .seconds(10), until condition: @MainActor (LiveBookList) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else { return false }
            await nextChange(before: deadline)
        }
        return true
    }

    /// Returns after the next change of `books`, `isLoaded` or `connection`, or at `deadline`.
    public func nextChange(before deadline: ContinuousClock.Instant) async {
        let (changed, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        withObservationTracking {
            _ = books
            _ = isLoaded
            _ = connection
        } onChange: {
            signal.yield()
        }
        let timer = Task {
            try? await Task.sleep(until: deadline)
            signal.finish()
        }
        for await _ in changed { break }
        timer.cancel()
    }
}
