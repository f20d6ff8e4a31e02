import BooksCore
import Testing

@testable import BooksMachines

/// The watched folder's decisions, without I/O: time is a number, checks are answered by hand.
@Suite struct StoreFolderStateMachineTests {
    let confirmation = Duration.milliseconds(500)

    func machine(batch: Int = 64) -> StoreFolderStateMachine {
        StoreFolderStateMachine(configuration: .init(folder: "/f", confirmation: confirmation, batchSize: batch))
    }

    func added(_ actions: [StoreFolderAction]) -> [String] {
        actions.flatMap { action -> [String] in
            if case .add(let specs) = action { return specs.map(\.name.rawValue) }
            return []
        }
    }

    func removed(_ actions: [StoreFolderAction]) -> [String] {
        actions.flatMap { action -> [String] in
            if case .remove(let specs, _) = action { return specs.map(\.name.rawValue) }
            return []
        }
    }

    func checks(_ actions: [StoreFolderAction]) -> [String] {
        actions.flatMap { action -> [String] in
            if case .check(let names) = action { return names }
            return []
        }
    }

    @Test(arguments: [
        ".books.txt.swp", ".books.txt.swx", "books.txt~", "4913", "#books.txt#", ".#books.txt", "sedAbc123",
        ".books.txt.EWzG5d", "XXNTl9rm", ".books.ggbo9ujy.tmp", "books.bak", "notes.md", ".txt", "books.txt.swp",
    ])
    func editorFilesAreNeverStores(_ name: String) {
        #expect(StoreFolderNames.store(for: name) == nil)
        var m = machine()
        let actions = m.handle(.entry(name, .created, now: .zero)) + m.handle(.tick(now: .seconds(5)))
        #expect(checks(actions).isEmpty && added(actions).isEmpty)
    }

    @Test func storeNamesComeFromTheBaseName() throws {
        #expect(StoreFolderNames.store(for: "fiction.txt")?.name == (try StoreName("fiction")))
        #expect(StoreFolderNames.store(for: "lib.json")?.format == .json)
        #expect(StoreFolderNames.classify("my list.txt") == .invalidName("my list.txt"))
    }

    @Test func listedFilesAtStartAreAddedAtOnce() {
        var m = machine()
        let actions = m.handle(.listed(["a.txt", "b.json", ".a.txt.swp", "x.md"], initial: true, now: .zero))
        #expect(added(actions) == ["a", "b"])
    }

    @Test func aCreatedFileIsAddedAfterTheQuietPeriod() {
        var m = machine()
        var actions = m.handle(.entry("new.txt", .created, now: .zero))
        #expect(added(actions).isEmpty)
        #expect(actions.contains(.wake(after: confirmation)))
        actions = m.handle(.entry("new.txt", .contentMayHaveChanged, now: .milliseconds(300)))
        #expect(actions.contains(.wake(after: confirmation)))  // the event restarted the period
        actions = m.handle(.tick(now: .milliseconds(500)))
        #expect(checks(actions).isEmpty)
        actions = m.handle(.tick(now: .milliseconds(800)))
        #expect(checks(actions) == ["new.txt"])
        actions = m.handle(.checked(["new.txt": true], now: .milliseconds(801)))
        #expect(added(actions) == ["new"])
    }

    @Test func aTemporaryStoreLikeFileThatLeavesIsNeverAdded() {
        var m = machine()
        _ = m.handle(.entry("tmp.txt", .created, now: .zero))
        let actions = m.handle(.entry("tmp.txt", .removed, now: .milliseconds(10)))
        #expect(actions.isEmpty)
        #expect(checks(m.handle(.tick(now: .seconds(2)))).isEmpty)
    }

    @Test func aFileGoneWhenCheckedIsNotAdded() {
        var m = machine()
        _ = m.handle(.entry("gone.txt", .created, now: .zero))
        #expect(added(m.handle(.checked(["gone.txt": false], now: .seconds(1)))).isEmpty)
    }

    @Test func removalIsConfirmedLikeAnEmptyFile() {
        var m = machine()
        _ = m.handle(.listed(["a.txt"], initial: true, now: .zero))
        // rm + recreate (git checkout, vim bkc=no): back before the period ends — kept.
        _ = m.handle(.entry("a.txt", .removed, now: .seconds(1)))
        _ = m.handle(.entry("a.txt", .created, now: .milliseconds(1_100)))
        var actions = m.handle(.checked(["a.txt": true], now: .milliseconds(1_700)))
        #expect(removed(actions).isEmpty)
        // mv out: still absent after the period — removed.
        _ = m.handle(.entry("a.txt", .removed, now: .seconds(3)))
        actions = m.handle(.tick(now: .milliseconds(3_200)))
        #expect(checks(actions).isEmpty)
        actions = m.handle(.tick(now: .milliseconds(3_600)))
        #expect(checks(actions) == ["a.txt"])
        actions = m.handle(.checked(["a.txt": false], now: .milliseconds(3_600)))
        #expect(removed(actions) == ["a"])
        #expect(m.servingNames.isEmpty)
    }

    @Test func tenThousandFilesAreTakenInBoundedSteps() {
        var m = machine(batch: 100)
        let names = (0..<10_000).map { "s\($0).txt" }
        var actions = m.handle(.listed(names, initial: true, now: .zero))
        #expect(added(actions).count == 100)
        #expect(actions.contains(.wake(after: .zero)))
        var total = added(actions).count
        var steps = 1
        while actions.contains(.wake(after: .zero)) {
            actions = m.handle(.tick(now: .zero))
            #expect(added(actions).count <= 100)
            total += added(actions).count
            steps += 1
        }
        #expect(total == 10_000)
        #expect(steps == 100)
    }

    @Test func overflowAndLostWatchRelistAndLostFolderIsLoggedOnce() {
        var m = machine()
        _ = m.handle(.listed(["a.txt", "b.txt"], initial: true, now: .zero))
        #expect(m.handle(.entry("", .overflow, now: .zero)).contains(.list))
        #expect(m.handle(.entry("", .watchLost, now: .zero)).contains(.list))
        let first = m.handle(.listFailed("no such directory"))
        #expect(first.count == 1)
        #expect(m.handle(.listFailed("no such directory")).isEmpty)
        // Back with only b.txt: a.txt disappears (after the period), nothing is added twice.
        let back = m.handle(.listed(["b.txt"], initial: false, now: .seconds(10)))
        #expect(added(back).isEmpty)
        let removal = m.handle(.checked(["a.txt": false], now: .seconds(11)))
        #expect(removed(removal) == ["a"])
    }

    @Test func aSecondFileOfAServedStoreNameIsShadowedUntilTheFirstGoes() {
        var m = machine()
        _ = m.handle(.listed(["orders.txt"], initial: true, now: .zero))
        _ = m.handle(.entry("orders.json", .created, now: .seconds(1)))
        var actions = m.handle(.checked(["orders.json": true], now: .seconds(2)))
        #expect(added(actions).isEmpty, "the squatter is not added")
        #expect(
            actions.contains { if case .log(.warning, let line) = $0 { line.contains("'orders.txt'") } else { false } })
        #expect(m.handle(.entry("orders.json", .contentMayHaveChanged, now: .seconds(3))).isEmpty, "logged once")
        // orders.txt leaves: its store is removed, then served from orders.json.
        _ = m.handle(.entry("orders.txt", .removed, now: .seconds(4)))
        actions = m.handle(.checked(["orders.txt": false], now: .seconds(5)))
        #expect(removed(actions) == ["orders"])
        #expect(checks(actions) == ["orders.json"])
        actions = m.handle(.checked(["orders.json": true], now: .seconds(5)))
        #expect(added(actions) == ["orders"])
        guard case .add(let specs)? = actions.first(where: { if case .add = $0 { true } else { false } }) else {
            return
        }
        #expect(specs.map(\.path) == ["/f/orders.json"])
    }

    @Test func atStartTheFileWithSavedHistoryWinsElseTheTextFile() {
        func served(_ names: [String], withHistory: Set<String>) -> [String] {
            var m = machine()
            let actions = m.handle(.listed(names, initial: true, now: .zero, withHistory: withHistory))
            return actions.flatMap { action -> [String] in
                if case .add(let specs) = action { return specs.map(\.path) }
                return []
            }
        }
        // A listing is sorted: orders.json comes first, yet orders.txt (with the history) serves.
        #expect(
            served(["a.txt", "orders.json", "orders.txt"], withHistory: ["orders.txt"]) == [
                "/f/a.txt", "/f/orders.txt",
            ])
        #expect(served(["orders.json", "orders.txt"], withHistory: ["orders.json"]) == ["/f/orders.json"])
        #expect(served(["orders.json", "orders.txt"], withHistory: []) == ["/f/orders.txt"])
        #expect(
            served(["orders.json", "orders.txt"], withHistory: ["orders.json", "orders.txt"]) == ["/f/orders.txt"])
    }

    @Test func aShadowedFileThatLeavesIsForgotten() {
        var m = machine()
        _ = m.handle(.listed(["orders.json", "orders.txt"], initial: true, now: .zero))
        _ = m.handle(.entry("orders.json", .removed, now: .seconds(1)))
        _ = m.handle(.entry("orders.txt", .removed, now: .seconds(1)))
        let actions = m.handle(.checked(["orders.txt": false], now: .seconds(2)))
        #expect(removed(actions) == ["orders"])
        #expect(checks(actions).isEmpty, "no file is waiting for the name")
        #expect(m.servingNames.isEmpty)
    }
}
