import BooksPlatform
import Testing

/// Makes the tests of this process that fill the descriptor table past `FD_SETSIZE` (1024) and
/// the tests that start libinotifytools take turns, one test case at a time.
///
/// libinotifytools `select()`s on its descriptor, so it needs a number below 1024. booksd keeps
/// one reserved (`InotifyHub.prepare()`, with a spare while the library runs), but a test that
/// holds thousands of sockets while accepting more takes every low number as soon as one is free:
/// a watcher test running beside it may meet a full table and fail for the test's sake, not the
/// product's. Apply `.descriptorTableTurn` to such suites and tests.
struct DescriptorTableTurn: TestTrait, SuiteTrait, TestScoping {
    /// Each test case of a suite takes its own turn.
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Self.queue.enter()
        defer { Self.queue.leave() }
        try await function()
    }

    private static let queue = TurnQueue()
}

extension Trait where Self == DescriptorTableTurn {
    /// Runs the test (each test of a suite) in its turn with every other test marked so.
    static var descriptorTableTurn: Self { DescriptorTableTurn() }
}

/// A FIFO of waiting tasks, one holding the turn; waiting suspends (no pool thread is blocked).
private final class TurnQueue: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
