import Glibc
import Testing

/// The fixture and the edits most tests make.
enum Books {
    static let all = Fixture.books()
    static func n(_ i: Int) -> TestBook { all[i - 1] }
    static let dune = n(1)
    static let duneUpper = TestBook(id: dune.id, name: "Dune", author: "Frank HERBERT")

    /// The fixture with `changes` applied (replace by id; nil value = delete), plus `appended`.
    static func text(replacing changes: [String: TestBook?] = [:], appending appended: [TestBook] = []) -> String {
        var rows: [TestBook] = []
        for b in all {
            if let change = changes[b.id] { if let c = change { rows.append(c) } } else { rows.append(b) }
        }
        return Fixture.text(rows + appended)
    }
}

/// Starts a daemon on a fresh directory, subscribes (after the initial snapshot), runs `body`,
/// then checks that the state rebuilt from the events equals the file, and cleans up.
func scenario(
    _ name: String, base: String = "/var/tmp", books: [TestBook]? = Fixture.books(),
    confirmationMs: Int? = nil, checkConvergence: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (DaemonHarness, Subscriber) async throws -> Void
) async throws {
    try await ScenarioGate.shared.limited {
        let h = try await DaemonHarness(name, base: base, books: books, confirmationMs: confirmationMs)
        defer { h.shutdown() }
        let sub = try await h.subscribe(initialCount: books?.count ?? 0)
        try await body(h, sub)
        if checkConvergence {
            let fileBooks = h.fileBooks
            sub.expectConverged(to: fileBooks, sourceLocation: sourceLocation)
            let listed = try await h.listedBooks()
            #expect(listed == fileBooks, "booksctl list --json differs from the file", sourceLocation: sourceLocation)
        }
    }
}

/// A `printf '%s\n' ROWS… > books.txt`-style argument list for `text`.
func printfArguments(_ text: String) -> String {
    text.split(separator: "\n").map { shellQuote(String($0)) }.joined(separator: " ")
}

var isRoot: Bool { geteuid() == 0 }

/// Limits how many daemons run at once (2 cores shared with the unit tests and other users).
/// BOOKSYNC_TEST_CONCURRENCY overrides the default of 4.
actor ScenarioGate {
    static let shared = ScenarioGate(
        limit: getenv("BOOKSYNC_TEST_CONCURRENCY").flatMap { Int(String(cString: $0)) } ?? 4)
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = max(1, limit) }

    func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }

    nonisolated func limited(_ body: () async throws -> Void) async throws {
        await enter()
        do { try await body() } catch {
            await leave()
            throw error
        }
        await leave()
    }
}
