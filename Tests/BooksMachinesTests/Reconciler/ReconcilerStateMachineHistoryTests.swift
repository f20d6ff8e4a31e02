import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// Continuing a context restored from saved history: what changed in the file while
/// the daemon was down is the next change set, with the usual guards — driven in memory.
@Suite struct ReconcilerStateMachineHistoryTests {
    static let rows = "1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n"
    static let dune = "1|DUNE|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n"
    static let both = "1|DUNE|Herbert\n2|EMMA|Austen\n3|Ulysses|Joyce\n4|Beloved|Morrison\n"

    /// A driver whose machine continues a context that reached seq 2 before the "restart", with
    /// the file now holding `file`.
    static func restarted(file: String?) -> ReconcilerDriver {
        var before = BookLedger(document: BookDocument(parsing: Array(rows.utf8)), epoch: "E")
        before.apply(bytes: Array(dune.utf8), source: .file)
        before.apply(bytes: Array(both.utf8), source: .client)
        var restored = BookLedger(restoring: before.saved, retention: 100)
        restored.recordsTransitions = true
        var driver = ReconcilerDriver(nil)
        driver.machine = ReconcilerStateMachine(configuration: driver.machine.configuration, restoring: restored)
        driver.broadcasts = []
        driver.edit(file)
        driver.run(.loaded(driver.snapshot()))
        return driver
    }

    @Test func downTimeEditsAreTheNextChangeSetAndVersionsSurvive() {
        let file = "1|DUNE|Herbert\n2|EMMA|Jane Austen\n4|Beloved|Morrison\n5|Walden|Thoreau\n"
        let driver = Self.restarted(file: file)
        #expect(driver.broadcasts.count == 1)
        let change = driver.broadcasts.first
        #expect(change?.epoch == "E" && change?.seq == 3 && change?.source == .file)
        #expect(change?.changes.updated.map(\.new) == [Book(id: "2", name: "EMMA", author: "Jane Austen")])
        #expect(change?.changes.inserted.map(\.id) == ["5"])
        #expect(change?.changes.deleted.map(\.id) == ["3"])
        let context = driver.machine.context
        #expect(context.version(of: "1") == 1 && context.version(of: "2") == 3 && context.version(of: "4") == 0)
        #expect(context.replay(fromEpoch: "E", seq: 0) == .replay(context.log.changes(after: 0, currentSeq: 3)!))
        #expect(context.transitions.count == 1, "the down-time change is journaled like any other")
    }

    @Test func anUnchangedFileIsNoChange() {
        let driver = Self.restarted(file: Self.both)
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.machine.context.seq == 2)
    }

    @Test func aFileEmptiedWhileDownWaitsForConfirmationLikeAnyEdit() {
        var driver = Self.restarted(file: "")
        #expect(driver.broadcasts.isEmpty, "a destructive-looking state is not believed at once")
        #expect(driver.timers.contains { if case .confirmation = $0 { true } else { false } })
        let fired = driver.fireConfirmation()
        #expect(fired)
        #expect(driver.broadcasts.map(\.seq) == [3])
        #expect(driver.broadcasts.first?.changes.deleted.count == 4)
    }
}
