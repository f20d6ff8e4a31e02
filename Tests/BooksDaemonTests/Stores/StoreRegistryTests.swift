import BooksCore
import BooksPlatform
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// The registry against real files (polling watchers: no inotify singleton in unit tests).
@Suite struct StoreRegistryTests {
    let dir: TemporaryDirectory
    let recorded = Recorded()

    /// What the registry handed out and told.
    final class Recorded: Sendable {
        let events = Locked<[StoreRegistryEvent]>([])
        let channels = Locked<[StoreName: RecordingChannel]>([:])
    }

    init() throws {
        dir = try TemporaryDirectory(prefix: "booksync-registry")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: dir.file("a.txt"))
        try TestFiles.write("2|Emma|Jane Austen\n1|a|b|c\n", to: dir.file("b.txt"))
    }

    func registry() -> StoreRegistry {
        let recorded = self.recorded
        let registry = Self.registry(stateDirectory: "none", recorded: recorded)
        registry.observe { event in recorded.events.withLock { $0.append(event) } }
        return registry
    }

    /// A registry of polling stores keeping their history in `stateDirectory`; the channels it
    /// hands out are kept in `recorded`.
    static func registry(stateDirectory: String, recorded: Recorded) -> StoreRegistry {
        var configuration = DaemonConfiguration()
        configuration.forcePolling = true
        configuration.pollIntervalMilliseconds = 20
        configuration.stateDirectory = stateDirectory
        return StoreRegistry(
            environment: .init(
                configuration: configuration, logger: Logger(backend: SilentLog()), notifier: SystemdNotifier(),
                hub: nil,
                channels: { name in
                    recorded.channels.withLock { all in
                        let channel = RecordingChannel()
                        all[name] = channel
                        return StoreChannels(channel: channel, engine: EnginePort())
                    }
                }))
    }

    func spec(_ name: String, _ file: String) throws -> StoreSpec {
        StoreSpec(name: try StoreName(name), path: dir.file(file), format: .text)
    }

    @Test func storesAreAddedLookedUpListedAndRemoved() throws {
        let registry = registry()
        defer { registry.stopWatchingAll() }
        #expect(registry.addAll([try spec("a", "a.txt"), try spec("b", "b.txt")]).isEmpty)
        #expect(registry.names.map(\.rawValue) == ["a", "b"])
        let b = try #require(registry.engine(named: try StoreName("b")))
        #expect(b.storeName.rawValue == "b")
        let statuses = registry.statuses()
        #expect(statuses.map(\.bookCount) == [1, 1])
        #expect(statuses.map(\.badLines) == [0, 1])
        #expect(statuses.allSatisfy { $0.state == "present" && $0.seq == 0 && !$0.epoch.isEmpty })
        #expect(registry.primaryEngine == nil)  // two stores, none named default

        try registry.remove(try StoreName("a"), reason: "test")
        #expect(registry.engine(named: try StoreName("a")) == nil)
        #expect(registry.primaryEngine === b)  // the only store
        #expect(throws: StoreConfigurationError.unknownStore(try StoreName("a"))) {
            try registry.remove(try StoreName("a"), reason: "")
        }
        let names = recorded.events.withLock { $0 }.map { event -> String in
            switch event {
            case .added(let status): "+\(status.name)"
            case .removed(let name, _): "-\(name)"
            }
        }
        #expect(names.sorted() == ["+a", "+b", "-a"])
        #expect(names.last == "-a")
    }

    @Test func duplicateNamesAndTheSameFileAreRefused() throws {
        let registry = registry()
        defer { registry.stopWatchingAll() }
        try registry.add(try spec("a", "a.txt"))
        #expect(symlink(dir.file("a.txt"), dir.file("link.txt")) == 0)
        #expect(link(dir.file("a.txt"), dir.file("hard.txt")) == 0)
        let failures = registry.addAll([try spec("a", "b.txt"), try spec("c", "link.txt"), try spec("d", "hard.txt")])
        #expect(failures.count == 3)
        #expect(failures.contains { if case .duplicateName = $0.1 { true } else { false } })
        let sameFile = failures.filter {
            if case .sameFile(_, _, let other, _) = $0.1 { other.rawValue == "a" } else { false }
        }
        #expect(sameFile.map(\.0.name.rawValue).sorted() == ["c", "d"])
        #expect(failures.allSatisfy { $0.1.description.contains("'a'") })
        #expect(registry.names.map(\.rawValue) == ["a"])
    }

    @Test func eachStoreGetsItsOwnChannelAndItsEditsOnly() throws {
        let registry = registry()
        defer { registry.stopWatchingAll() }
        _ = registry.addAll([try spec("a", "a.txt"), try spec("b", "b.txt")])
        try TestFiles.write("2|Emma|JANE AUSTEN\n1|a|b|c\n", to: dir.file("b.txt"))
        let b = try #require(recorded.channels.withLock { $0[try StoreName("b")] })
        let a = try #require(recorded.channels.withLock { $0[try StoreName("a")] })
        #expect(eventuallyBlocking(timeout: 5, interval: 0.02) { b.changes.withLock { $0.count } == 1 })
        #expect(a.changes.withLock { $0.isEmpty })
        // The status copy is published just after the broadcast.
        let engine = registry.engine(named: try StoreName("b"))
        #expect(eventuallyBlocking(timeout: 5, interval: 0.02) { engine?.storeStatus.seq == 1 })
    }
}
