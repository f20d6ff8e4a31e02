import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol

/// The closed loops of `SaveBenchmark`: each worker has its own connection and sends its next
/// request when the previous one is acknowledged, until the deadline.
enum SaveLoad {
    /// What one cell measured.
    struct Outcome: Sendable {
        var completed = 0
        var failed = 0
        var latenciesMS: [Double] = []
        var seconds = 0.0
    }

    /// `workers` clients inserting one book per request for `seconds`.
    static func inserts(socket: String, workers: Int, seconds: Double) async throws -> Outcome {
        try await run(workers: workers, seconds: seconds) { k in
            let client = try await BooksClient.connect(socketPath: socket, clientName: "bench-insert-\(k)")
            var n = 0
            return { () async -> Bool in
                n += 1
                let draft = BookDraft(name: "Insert \(k)-\(n)", author: "Bench Inserter")
                return (try? await client.insert([draft])) != nil
            }
        }
    }

    /// `workers` contexts, each saving 3 inserts, 2 updates and 1 delete per request for
    /// `seconds`, on the books of author `Context <k>` (so the contexts never conflict).
    static func saves(socket: String, workers: Int, seconds: Double) async throws -> Outcome {
        try await run(workers: workers, seconds: seconds) { k in
            let client = try await BooksClient.connect(socketPath: socket, clientName: "bench-save-\(k)")
            let context = BooksContext(client)
            let mine = BookFilter([BookCondition(.author, .equals, "Context \(k)")])
            var ids = try await context.fetch(BookQuery(filter: mine)).map(\.id)
            var n = 0
            return { () async -> Bool in
                guard ids.count >= 3 else { return false }
                n += 1
                let temps = (0..<3).map { context.insert(name: "Saved \(k)-\(n)-\($0)", author: "Context \(k)") }
                do {
                    try context.update(ids[n % ids.count], name: "Updated \(k)-\(n)")
                    try context.update(ids[(n + 1) % ids.count], name: "Updated \(k)-\(n)")
                    let doomed = ids.remove(at: (n + 2) % ids.count)
                    try context.delete(doomed)
                    let remap = try await context.save()
                    ids += temps.compactMap { remap[$0] }
                    return true
                } catch {
                    context.rollback()
                    return false
                }
            }
        }
    }

    /// Starts `workers` workers (`make` connects one and returns its step, inside its task),
    /// waits until all are connected, runs every step in a closed loop until `seconds` have
    /// passed, then waits for the steps in flight.
    private static func run(
        workers: Int, seconds: Double,
        make: @escaping @Sendable (Int) async throws -> (() async -> Bool)
    ) async throws -> Outcome {
        let gate = StartGate()
        let results = try await withThrowingTaskGroup(of: (Int, Int, [Double], UInt64).self) { group in
            for k in 0..<workers {
                group.addTask {
                    let step = try await make(k)
                    gate.arrive(of: workers)
                    var start: UInt64?
                    while start == nil {
                        start = gate.start
                        if start == nil { try await Task.sleep(for: .milliseconds(1)) }
                    }
                    let deadline = start! + UInt64(seconds * 1e9)
                    var ok = 0
                    var failed = 0
                    var latencies: [Double] = []
                    while Stopwatch.now() < deadline {
                        let sent = Stopwatch.now()
                        if await step() {
                            ok += 1
                            latencies.append(Double(Stopwatch.now() - sent) / 1e6)
                        } else {
                            failed += 1
                        }
                    }
                    return (ok, failed, latencies, Stopwatch.now())
                }
            }
            var all: [(Int, Int, [Double], UInt64)] = []
            for try await result in group { all.append(result) }
            return all
        }
        let start = gate.start ?? Stopwatch.now()
        let end = results.map(\.3).max() ?? start
        return Outcome(
            completed: results.reduce(0) { $0 + $1.0 }, failed: results.reduce(0) { $0 + $1.1 },
            latenciesMS: results.flatMap(\.2), seconds: Double(end - start) / 1e9)
    }
}

/// Holds the workers back until all are connected; the last to arrive starts the clock.
private final class StartGate: Sendable {
    private let state = Locked<(ready: Int, start: UInt64?)>((0, nil))

    /// One worker is ready; the `workers`-th sets the start time.
    func arrive(of workers: Int) {
        state.withLock { g in
            g.ready += 1
            if g.ready == workers { g.start = Stopwatch.now() }
        }
    }

    /// The start time, once every worker arrived.
    var start: UInt64? { state.withLock { $0.start } }
}
