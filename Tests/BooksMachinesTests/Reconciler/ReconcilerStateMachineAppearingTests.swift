import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// A store that appears while the daemon runs and one that goes, driven in memory: the first
/// starts empty and its books are change set 1; the second ends with a change set deleting them.
@Suite struct ReconcilerStateMachineAppearingTests {
    static let rows = "1|Dune|Herbert\n2|Emma|Austen\n"

    @Test func anAppearingStoreStartsEmptyAndItsBooksAreChangeSetOne() {
        var driver = ReconcilerDriver(Self.rows)
        driver.broadcasts = []
        driver.machine = ReconcilerStateMachine(configuration: driver.machine.configuration, epoch: "E")
        driver.run(.appeared(driver.snapshot()))
        #expect(driver.broadcasts.count == 1)
        let change = driver.broadcasts.first
        #expect(change?.epoch == "E" && change?.seq == 1 && change?.source == .file)
        #expect(change?.changes.inserted.map(\.id) == ["1", "2"])
        #expect(driver.machine.context.bookCount == 2)
    }

    @Test func aRetiredStoreEndsWithEveryBookDeleted() {
        var driver = ReconcilerDriver(Self.rows)
        driver.run(.loaded(driver.snapshot()))
        driver.broadcasts = []
        driver.run(.retired)
        #expect(driver.broadcasts.count == 1)
        let change = driver.broadcasts.first
        #expect(change?.seq == 1 && change?.source == .file)
        #expect(change?.changes.deleted.map(\.id) == ["1", "2"])
        #expect(driver.machine.context.bookCount == 0)
        // A store with no books ends without a change set.
        driver.broadcasts = []
        driver.run(.retired)
        #expect(driver.broadcasts.isEmpty)
    }
}
