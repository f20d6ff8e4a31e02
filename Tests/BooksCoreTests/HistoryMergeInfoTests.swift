import FoundationEssentials
import Testing

@testable import BooksCore

/// A merged save's base and the client writes a standing edit reverted are kept in the saved
/// history (change-set layout 3), and records without them keep layout 2.
@Suite struct HistoryMergeInfoTests {
    @Test func mergedBaseAndRevertsSurviveTheJournalAndItsReplay() throws {
        var live = BookLedger(document: BookDocument(parsing: Array("1|Dune|Herbert\n".utf8)), epoch: "E")
        let start = live.saved
        live.recordsTransitions = true
        live.apply(bytes: Array("1|Dune|Herbert\n2|Emma|Austen\n".utf8), source: .client)
        live.apply(bytes: Array("1|Dune|HERBERT\n2|Emma|Austen\n".utf8), source: .file, mergedBase: 0)
        live.apply(bytes: Array("1|Dune|HERBERT\n".utf8), source: .file)
        live.markReverts([1])
        let transitions = live.takeTransitions()
        #expect(transitions.compactMap(\.applied?.mergedBase) == [0])
        #expect(transitions.compactMap(\.applied?.reverts) == [[1]])
        let header = HistoryJournalFormat.Header(
            closedCleanly: false, snapshotID: 1, baseSeq: 0, bootID: Array(repeating: 1, count: 16))
        let journal = HistoryJournalFormat.encode(header) + transitions.flatMap { HistoryJournalFormat.encode($0) }
        let decoded = try HistoryJournalFormat.decode(journal).1
        #expect(decoded == transitions)
        var restored = BookLedger(restoring: start, retention: 100)
        for transition in decoded {
            let replayed = restored.replay(transition)
            #expect(replayed)
        }
        let log = try #require(restored.log.changes(after: 0, currentSeq: restored.seq))
        #expect(log.map(\.mergedBase) == [nil, 0, nil])
        #expect(log.map(\.reverts) == [nil, nil, [1]])
        // A snapshot keeps them too.
        let snapshot = HistorySnapshotFormat.encode(restored.saved, fileKey: "k", snapshotID: 2).flatMap { $0 }
        #expect(try HistorySnapshotFormat.decode(snapshot).context.log.map(\.reverts) == [nil, nil, [1]])
    }

    @Test func aChangeSetWithoutThemKeepsLayoutTwo() throws {
        let change = SequencedChangeSet(
            epoch: "E", seq: 4, source: .client, time: Date(timeIntervalSinceReferenceDate: 1),
            changes: ChangeSet(inserted: [Book(id: "1", name: "Dune", author: "Herbert")]))
        var writer = HistoryByteWriter()
        writer.changeSet(change)
        #expect(writer.bytes[(8 + 1 + 8)...].first == 2, "the layout byte after epoch and seq")
        var reader = HistoryByteReader(writer.bytes, range: 0..<writer.bytes.count, what: "test")
        #expect(try reader.changeSet() == change)
    }
}
