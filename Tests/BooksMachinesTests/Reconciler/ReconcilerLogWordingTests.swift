import BooksCore
import Testing

@testable import BooksMachines

/// The daemon's log names a change as the feed does: a save that only gave ids to rows typed by
/// hand is a file edit (source `file`), not a client write; counts are singular for one.
@Suite struct ReconcilerLogWordingTests {
    @Test func idsGivenToTypedRowsAreLoggedAsTheFileEditTheFeedReports() throws {
        var driver = ReconcilerDriver("1|Dune|Herbert\n")
        driver.edit("1|Dune|Herbert\nEmma|Jane Austen\n")
        driver.event()
        _ = driver.fireConfirmation()
        let change = try #require(driver.broadcasts.last)
        #expect(change.source == .file)
        #expect(change.changes.inserted.map(\.name) == ["Emma"])
        let infos = driver.logs.filter { $0.0 == .info }.map(\.1)
        #expect(!infos.contains { $0.hasPrefix("client write") }, "\(infos)")
        #expect(infos.contains("file edit (ids given to new rows): 1 inserted, 0 updated, 0 deleted"), "\(infos)")
    }

    @Test func aClientWriteIsStillLoggedAsOne() throws {
        var driver = ReconcilerDriver("1|Dune|Herbert\n")
        driver.write([("w", try ReconcilerStateMachineSaveTests.save(inserted: [("t1", "Emma")]))])
        #expect(driver.broadcasts.last?.source == .client)
        #expect(driver.logs.contains { $0.1 == "client write: 1 inserted, 0 updated, 0 deleted" }, "\(driver.logs)")
    }

    @Test(arguments: [
        ("1|Dune|Herbert\n", "loaded 1 book, 0 bad lines"), ("1|Dune|H\nbad\n", "loaded 1 book, 1 bad line"),
    ])
    func loadedCountsAreSingularForOne(text: String, line: String) {
        let driver = ReconcilerDriver(text)
        #expect(driver.logs.contains { $0.1 == line }, "\(driver.logs)")
    }
}
