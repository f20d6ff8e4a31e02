import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// One line of `booksctl subscribe --json`.
struct BookEvent: Decodable, Equatable, CustomStringConvertible {
    let seq: Int
    let kind: String
    let id: String
    let name: String
    let author: String
    let source: String
    let oldName: String?
    let oldAuthor: String?
    /// Following several stores: the store of the line (its last key).
    var store: String?
    var raw: String = ""

    enum CodingKeys: String, CodingKey { case seq, kind, id, name, author, source, oldName, oldAuthor, store }

    /// The book's key in a subscriber's state: its id, qualified by its store when the line names
    /// one other than `default` (a subscriber of one store sees lines naming it: its books are
    /// keyed by id alone, see `Subscriber.key(of:)`).
    var key: String { store.map { $0 == "default" ? id : "\($0)/\(id)" } ?? id }

    var description: String { raw.isEmpty ? "\(seq) \(kind) \(id) \(name)|\(author) (\(source))" : raw }

    /// The fixed key order: seq, kind, id, name, author, source (then optional oldName/oldAuthor).
    static func hasRequiredKeyOrder(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        var from = 0
        for key in ["\"seq\":", "\"kind\":", "\"id\":", "\"name\":", "\"author\":", "\"source\":"] {
            let k = Array(key.utf8)
            guard
                let at = (from..<max(from, bytes.count - k.count + 1)).first(where: {
                    Array(bytes[$0..<$0 + k.count]) == k
                })
            else { return false }
            from = at + k.count
        }
        return true
    }
}

/// `booksctl status --json` (the parts the tests look at).
struct DaemonStatus: Decodable {
    /// `{"line","code","message","text"}` (docs/PROTOCOL.md).
    struct BadLine: Decodable {
        let line: Int
        let code: String
        let message: String
        let text: String
    }
    let badLines: [BadLine]
    let bookCount: Int
    let subscribers: Int
}

/// One element of `booksctl list --json`.
struct ListedBook: Decodable {
    let id: String
    let name: String
    let author: String
}

/// What a test expects to receive. `id == nil` matches any id (a newly assigned one).
struct ExpectedEvent: CustomStringConvertible {
    let kind: String
    let id: String?
    let name: String
    let author: String
    let source: String
    /// The store the line must name (nil: any, or none).
    var store: String?

    /// This event in `store`.
    func `in`(_ store: String) -> ExpectedEvent {
        var copy = self
        copy.store = store
        return copy
    }

    static func insert(_ b: TestBook, source: String = "file") -> ExpectedEvent {
        .init(kind: "insert", id: b.id, name: b.name, author: b.author, source: source)
    }
    static func update(_ b: TestBook, source: String = "file") -> ExpectedEvent {
        .init(kind: "update", id: b.id, name: b.name, author: b.author, source: source)
    }
    static func delete(_ b: TestBook, source: String = "file") -> ExpectedEvent {
        .init(kind: "delete", id: b.id, name: b.name, author: b.author, source: source)
    }
    static func insertNew(name: String, author: String, source: String = "file") -> ExpectedEvent {
        .init(kind: "insert", id: nil, name: name, author: author, source: source)
    }

    func matches(_ e: BookEvent) -> Bool {
        e.kind == kind && (id == nil || e.id == id) && e.name == name && e.author == author && e.source == source
            && (store == nil || e.store == store)
    }

    var description: String { "\(kind) \(id ?? "<new id>") \(name)|\(author) (\(source))" }
}

/// `booksctl subscribe --json --initial` as a child process; lines are parsed as they arrive.
final class Subscriber: @unchecked Sendable {
    private let process: ChildProcess
    private let lines: LineReader
    private weak var harness: DaemonHarness?
    private(set) var received: [BookEvent] = []  // after the initial snapshot
    private(set) var state: [String: TestBook] = [:]  // reconstructed from all events (keyed as `key(of:)`)
    /// The last seq seen, per store (sequence numbers are per store; "" without stores).
    private var lastSeq: [String: Int] = [:]
    /// The one store followed (`--store`), whose books are keyed by id alone.
    private let followed: String?
    let logPath: String

    /// `options`: more `subscribe` options (e.g. `--mirror`).
    init(harness: DaemonHarness, initial: Bool, store: String? = nil, options: [String] = []) throws {
        self.harness = harness
        followed = store
        logPath = harness.logDir + "/subscribe-\(DaemonHarness.uniqueNumber()).log"
        var argv = [BuildProducts.booksctl, "--socket", harness.socket, "subscribe", "--json"]
        if initial { argv.append("--initial") }
        if let store { argv += ["--store", store] }
        argv += options
        process = try ChildProcess.spawn(
            argv, environment: harness.tools.environment,
            stdout: .pipe, stderr: .appendFile(logPath))
        lines = LineReader(fd: process.stdoutPipe!)
    }

    func stop() {
        process.terminate(grace: 2)
    }

    /// The next complete line, or nil after `timeout` seconds / at end of stream.
    func nextLine(timeout: Double) async -> String? {
        await lines.nextLineAsync(timeout: timeout)
    }

    /// The next event within `timeout` seconds (unparsable lines are recorded as issues and skipped).
    func next(timeout: Double, sourceLocation: SourceLocation = #_sourceLocation) async -> BookEvent? {
        let deadline = MonotonicClock.seconds() + timeout
        while let line = await nextLine(timeout: max(0, deadline - MonotonicClock.seconds())) {
            if line.allSatisfy({ $0 == " " || $0 == "\r" || $0 == "\t" }) { continue }
            guard var event = try? JSONDecoder().decode(BookEvent.self, from: Data(line.utf8)) else {
                Issue.record("unparsable subscribe line: \(line)", sourceLocation: sourceLocation)
                continue
            }
            event.raw = line
            if !BookEvent.hasRequiredKeyOrder(line) {
                Issue.record(
                    "keys not in the order seq,kind,id,name,author,source: \(line)", sourceLocation: sourceLocation)
            }
            if !["insert", "update", "delete"].contains(event.kind) {
                Issue.record("unknown kind in: \(line)", sourceLocation: sourceLocation)
            }
            let last = lastSeq[event.store ?? "", default: Int.min]
            if event.seq < last {
                Issue.record("seq went backwards (\(last) → \(event.seq)): \(line)", sourceLocation: sourceLocation)
            }
            lastSeq[event.store ?? ""] = max(last, event.seq)
            if event.kind == "update", let before = state[key(of: event)] {
                if let oldName = event.oldName, oldName != before.name {
                    Issue.record(
                        "oldName \(oldName) but the last known name was \(before.name): \(line)",
                        sourceLocation: sourceLocation)
                }
                if let oldAuthor = event.oldAuthor, oldAuthor != before.author {
                    Issue.record(
                        "oldAuthor \(oldAuthor) but the last known author was \(before.author): \(line)",
                        sourceLocation: sourceLocation)
                }
            }
            if event.kind == "update" || event.kind == "delete", state[key(of: event)] == nil {
                Issue.record("\(event.kind) of an id the subscriber never saw: \(line)", sourceLocation: sourceLocation)
            }
            if event.kind == "insert", event.source != "snapshot", state[key(of: event)] != nil {
                Issue.record("insert of an id that already exists: \(line)", sourceLocation: sourceLocation)
            }
            apply(event)
            return event
        }
        return nil
    }

    /// `event.key`, or its id alone when this subscriber follows one store.
    private func key(of event: BookEvent) -> String { followed == nil ? event.key : event.id }

    private func apply(_ e: BookEvent) {
        switch e.kind {
        case "delete": state[key(of: e)] = nil
        default: state[key(of: e)] = TestBook(id: e.id, name: e.name, author: e.author)
        }
    }

    /// Consumes the `--initial` snapshot (`count` books).
    func awaitInitial(count: Int, timeout: Double) async throws {
        if count == 0 {
            // Nothing will arrive to prove the subscription is live; give it a moment.
            await MonotonicClock.pause(seconds: 0.5)
            return
        }
        let deadline = MonotonicClock.seconds() + timeout
        var got = 0
        while got < count {
            guard await next(timeout: max(0, deadline - MonotonicClock.seconds())) != nil else {
                throw TestSupportError(
                    """
                    subscriber got \(got) of \(count) initial books within \(timeout) s; stderr: \
                    \(TestFiles.readText(logPath) ?? "")
                    \(harness?.daemonLog() ?? "")
                    """
                )
            }
            got += 1
        }
    }

    /// Collects events until `count` arrived or `timeout` passed (whichever first).
    func collect(count: Int, timeout: Double) async -> [BookEvent] {
        var events: [BookEvent] = []
        let deadline = MonotonicClock.seconds() + timeout
        while events.count < count, let e = await next(timeout: max(0, deadline - MonotonicClock.seconds())) {
            events.append(e)
            received.append(e)
        }
        return events
    }

    /// Collects everything that arrives until nothing has arrived for `quiet` seconds (at most `limit`).
    func drain(quiet: Double, limit: Double = 30) async -> [BookEvent] {
        var events: [BookEvent] = []
        let deadline = MonotonicClock.seconds() + limit
        while MonotonicClock.seconds() < deadline, let e = await next(timeout: quiet) {
            events.append(e)
            received.append(e)
        }
        return events
    }

    /// Asserts that exactly `expected` (in any order) arrive, and then nothing within `quiet` seconds.
    @discardableResult
    func expectEvents(
        _ expected: [ExpectedEvent], timeout: Double = 8, quiet: Double = 1.2,
        _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [BookEvent] {
        var events = await collect(count: expected.count, timeout: timeout)
        events += await drain(quiet: quiet)
        var unmatched = events
        var missing: [ExpectedEvent] = []
        for exp in expected {
            if let i = unmatched.firstIndex(where: { exp.matches($0) }) {
                unmatched.remove(at: i)
            } else {
                missing.append(exp)
            }
        }
        if !missing.isEmpty || !unmatched.isEmpty {
            Issue.record(
                """
                \(what.isEmpty ? "" : what + ": ")events differ.
                expected (\(expected.count)):
                \(expected.map { "  " + $0.description }.joined(separator: "\n"))
                received (\(events.count)):
                \(events.map { "  " + $0.description }.joined(separator: "\n"))
                missing: \(missing.map(\.description)); unexpected: \(unmatched.map(\.description))
                \(harness?.daemonLog(lastLines: 30) ?? "")
                """, sourceLocation: sourceLocation)
        }
        return events
    }

    /// Asserts that no event arrives within `seconds`.
    func expectNoMoreEvents(
        within seconds: Double = 1.2, _ what: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let events = await drain(quiet: seconds, limit: seconds * 3)
        if !events.isEmpty {
            Issue.record(
                """
                \(what.isEmpty ? "" : what + ": ")expected no events, received \(events.count):
                \(events.map { "  " + $0.description }.joined(separator: "\n"))
                \(harness?.daemonLog(lastLines: 30) ?? "")
                """,
                sourceLocation: sourceLocation)
        }
    }

    /// Asserts that the state rebuilt from the events equals the books in the file.
    func expectConverged(to books: [String: TestBook], sourceLocation: SourceLocation = #_sourceLocation) {
        if state != books {
            let extra = state.values.filter { books[$0.id] != $0 }.map(\.description).sorted()
            let lacking = books.values.filter { state[$0.id] != $0 }.map(\.description).sorted()
            Issue.record(
                """
                subscriber state (\(state.count) books) differs from the file (\(books.count) books).
                only in subscriber / different: \(extra)
                only in file / different: \(lacking)
                """,
                sourceLocation: sourceLocation)
        }
    }
}
