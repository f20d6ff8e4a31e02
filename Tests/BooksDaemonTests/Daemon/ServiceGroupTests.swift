import BooksPlatform
import Glibc
import Testing

@testable import BooksDaemon

/// The runner over fake services: a signal posted before `run` is handled once all started, so
/// `run` returns on the test's own thread (no thread, no clock).
@Suite struct ServiceGroupTests {
    struct Refused: Error {}

    /// What happened, in order.
    final class Journal: Sendable {
        private let lines = Locked<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Records its starts and stops in a shared journal; `fails` makes its start throw.
    struct FakeService: DaemonService {
        let name: String
        let journal: Journal
        var fails = false

        func start() throws {
            journal.add("start \(name)")
            if fails { throw Refused() }
        }
        func stop() { journal.add("stop \(name)") }
    }

    static func services(_ names: [String], journal: Journal, failing: String? = nil) -> [any DaemonService] {
        names.map { FakeService(name: $0, journal: journal, fails: $0 == failing) }
    }

    @Test func aSIGTERMStopsEveryServiceInReverseAndRunReturnsZero() {
        let journal = Journal()
        var hooks = ServiceGroup.Hooks()
        hooks.ready = { journal.add("ready") }
        hooks.stopping = { number in journal.add("stopping \(number)") }
        hooks.reload = { journal.add("reload") }
        let group = ServiceGroup(Self.services(["socket", "stores", "http"], journal: journal), hooks: hooks)
        group.post(signal: SIGHUP)
        group.post(signal: SIGTERM)
        group.post(signal: SIGINT)  // a second stop is ignored
        #expect(group.run() == 0)
        #expect(
            journal.all == [
                "start socket", "start stores", "start http", "ready", "reload", "stopping \(SIGTERM)",
                "stop http", "stop stores", "stop socket",
            ])
    }

    @Test func aFailingStartStopsWhatStartedAndRunReturnsOne() {
        let journal = Journal()
        var hooks = ServiceGroup.Hooks()
        hooks.ready = { journal.add("ready") }
        hooks.failed = { name, error in journal.add("failed \(name): \(error is Refused)") }
        let group = ServiceGroup(
            Self.services(["socket", "hub", "stores", "http"], journal: journal, failing: "stores"), hooks: hooks)
        #expect(group.run() == 1)
        #expect(
            journal.all == [
                "start socket", "start hub", "start stores", "failed stores: true", "stop hub", "stop socket",
            ])
    }
}
