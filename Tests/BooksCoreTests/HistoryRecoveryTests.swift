import FoundationEssentials
import Testing

@testable import BooksCore

/// `HistoryRecovery`'s decisions: what may be continued and why not — without files.
@Suite("History recovery decisions")
struct HistoryRecoveryTests {
    static let boot: [UInt8] = Array(repeating: 7, count: 16)
    static let expectation = HistoryRecovery.Expectation(
        fileKey: "text:/d/books.txt", bootID: boot, lineLimit: BookDocument.defaultLineLimit, retention: 100)

    /// A saved state: a snapshot of a context, and a journal of `edits` transitions after it.
    struct Saved {
        var snapshot: [UInt8]
        var header: HistoryJournalFormat.Header
        var records: [[UInt8]]
        var live: BookLedger
        var journal: [UInt8] { HistoryJournalFormat.encode(header) + records.flatMap { $0 } }
    }

    static func saved(edits: Int = 3, fileKey: String = "text:/d/books.txt") -> Saved {
        var context = BookLedger(document: BookDocument(parsing: Array("a|A|X\nb|B|Y\n".utf8)), epoch: "E1")
        context.apply(bytes: Array("a|A2|X\nb|B|Y\n".utf8), source: .client)
        let snapshot = HistorySnapshotFormat.encode(context.saved, fileKey: fileKey, snapshotID: 11).flatMap { $0 }
        context.recordsTransitions = true
        for k in 0..<edits { context.apply(bytes: Array("a|A2|X\nb|B\(k)|Y\n".utf8), source: .file) }
        let records = context.takeTransitions().map { HistoryJournalFormat.encode($0) }
        let header = HistoryJournalFormat.Header(closedCleanly: false, snapshotID: 11, baseSeq: 1, bootID: boot)
        return Saved(snapshot: snapshot, header: header, records: records, live: context)
    }

    static func reason(_ outcome: HistoryRecovery.Outcome) -> String? {
        if case .newEpoch(let reason) = outcome { return reason }
        return nil
    }

    @Test("an intact state after a crash in the same boot is continued at its last seq")
    func restoresAfterCrash() throws {
        let state = Self.saved()
        let outcome = HistoryRecovery.restore(
            snapshot: state.snapshot, journal: state.journal, publishedSeq: 4, expectation: Self.expectation)
        guard case .restored(let restored) = outcome else {
            Issue.record("not restored: \(outcome)")
            return
        }
        #expect(restored.context.epoch == "E1" && restored.context.seq == 4 && restored.replayed == 3)
        #expect(restored.context.books == state.live.books)
        #expect(restored.context.version(of: "b") == 4 && restored.context.version(of: "a") == 1)
        #expect(restored.context.replay(fromEpoch: "E1", seq: 1) == state.live.replay(fromEpoch: "E1", seq: 1))
    }

    @Test("each inconsistency is a new epoch with its reason")
    func rejections() {
        let state = Self.saved()
        func check(
            _ expected: String, snapshot: [UInt8]?, journal: [UInt8]?, published: UInt64? = 4,
            expectation: HistoryRecovery.Expectation = HistoryRecoveryTests.expectation
        ) {
            let outcome = HistoryRecovery.restore(
                snapshot: snapshot, journal: journal, publishedSeq: published, expectation: expectation)
            let reason = Self.reason(outcome)
            #expect(reason?.contains(expected) == true, "\(expected): \(String(describing: reason))")
        }
        check("no saved history", snapshot: nil, journal: nil)
        check("journal is missing", snapshot: state.snapshot, journal: nil)
        check(
            "published but the journal ends at seq 3", snapshot: state.snapshot,
            journal: Array(state.journal.dropLast(state.records[2].count)))
        check("marker is missing", snapshot: state.snapshot, journal: state.journal, published: nil)
        var other = Self.expectation
        other.fileKey = "text:/elsewhere/books.txt"
        check("another book file", snapshot: state.snapshot, journal: state.journal, expectation: other)
        var limit = Self.expectation
        limit.lineLimit = 4096
        check("max_line_bytes changed", snapshot: state.snapshot, journal: state.journal, expectation: limit)
        var rebooted = Self.expectation
        rebooted.bootID = Array(repeating: 8, count: 16)
        check("machine restarted", snapshot: state.snapshot, journal: state.journal, expectation: rebooted)
        var foreign = state
        foreign.header.snapshotID = 12
        check("does not continue the snapshot", snapshot: state.snapshot, journal: foreign.journal)
        var closed = state
        closed.header.closedCleanly = true
        check("records after its clean close", snapshot: state.snapshot, journal: closed.journal)
        var swapped = state
        swapped.records.swapAt(0, 1)
        check("does not replay", snapshot: state.snapshot, journal: swapped.journal)
    }

    @Test("boot times from the clocks name the same boot within 30 s, a reboot otherwise")
    func bootTimeIDs() {
        let boot = HistoryRecovery.bootTimeID(seconds: 1_700_000_000)
        #expect(HistoryRecovery.sameBoot(boot, HistoryRecovery.bootTimeID(seconds: 1_700_000_002)))
        #expect(!HistoryRecovery.sameBoot(boot, HistoryRecovery.bootTimeID(seconds: 1_700_000_300)))
        #expect(!HistoryRecovery.sameBoot(boot, Self.boot))
    }

    @Test("a state closed cleanly is continued after a reboot")
    func cleanCloseSurvivesReboot() {
        var state = Self.saved(edits: 0)
        state.header.closedCleanly = true
        var rebooted = Self.expectation
        rebooted.bootID = Array(repeating: 9, count: 16)
        let outcome = HistoryRecovery.restore(
            snapshot: state.snapshot, journal: state.journal, publishedSeq: 1, expectation: rebooted)
        guard case .restored(let restored) = outcome else {
            Issue.record("not restored: \(outcome)")
            return
        }
        #expect(restored.context.seq == 1 && restored.context.epoch == "E1")
    }

    @Test(
        "a journal of an earlier snapshot (a crash between the renames) leaves the snapshot alone, if nothing later was published"
    )
    func journalOfAnEarlierSnapshot() {
        let state = Self.saved(edits: 0)
        var earlier = state
        earlier.header.snapshotID = 10
        earlier.header.baseSeq = 0
        let outcome = HistoryRecovery.restore(
            snapshot: state.snapshot, journal: earlier.journal, publishedSeq: 1, expectation: Self.expectation)
        guard case .restored(let restored) = outcome else {
            Issue.record("not restored: \(outcome)")
            return
        }
        #expect(restored.freshJournal && restored.replayed == 0 && restored.context.seq == 1)
        #expect(restored.context.books == state.live.books)
        // Something after the snapshot was published, the journal is of a later one, or of an
        // earlier boot: a new epoch.
        for (published, baseSeq, boot) in [
            (UInt64(2), UInt64(0), Self.boot), (1, 2, Self.boot), (1, 0, [UInt8](repeating: 8, count: 16)),
        ] {
            var other = earlier
            other.header.baseSeq = baseSeq
            other.header.bootID = boot
            other.header.closedCleanly = boot != Self.boot  // closed cleanly, but in another boot
            let reason = Self.reason(
                HistoryRecovery.restore(
                    snapshot: state.snapshot, journal: other.journal, publishedSeq: published,
                    expectation: Self.expectation))
            #expect(
                reason?.contains("does not continue the snapshot") == true,
                "\(published), \(baseSeq): \(String(describing: reason))")
        }
    }
}

extension HistoryRecoveryTests {
    @Test("a state older than a change set already handed out in its epoch (a restored copy) is a new epoch")
    func olderCopyOfTheState() {
        let state = Self.saved()  // ends at seq 4, epoch E1
        func outcome(_ served: ResumePoint?, journal: [UInt8]? = nil, published: UInt64 = 4) -> HistoryRecovery.Outcome
        {
            var expectation = Self.expectation
            expectation.served = served
            return HistoryRecovery.restore(
                snapshot: state.snapshot, journal: journal ?? state.journal, publishedSeq: published,
                expectation: expectation)
        }
        let reason = Self.reason(outcome(ResumePoint(epoch: "E1", seq: 7)))
        #expect(
            reason?.contains("ends at seq 4 but seq 7 of its epoch was already handed out") == true, "\(reason ?? "")")
        // The snapshot alone (a journal of an earlier snapshot) is checked the same way.
        var earlier = Self.saved(edits: 0)
        earlier.header.snapshotID = 10
        earlier.header.baseSeq = 0
        let alone = Self.reason(outcome(ResumePoint(epoch: "E1", seq: 2), journal: earlier.journal, published: 1))
        #expect(alone?.contains("ends at seq 1 but seq 2") == true, "\(alone ?? "")")
        // Not stale: no mark, the same seq (edits while stopped come after it), another epoch's mark.
        for served in [
            nil, ResumePoint(epoch: "E1", seq: 4), ResumePoint(epoch: "E1", seq: 3), ResumePoint(epoch: "E0", seq: 9),
        ] {
            guard case .restored = outcome(served) else {
                Issue.record("not restored with \(String(describing: served))")
                continue
            }
        }
    }

    @Test("a served mark round-trips; anything else decodes to nil")
    func servedMarkEncoding() {
        let mark = ResumePoint(epoch: "F0E40C79-10A5-49F7-B8C3-461E1E046AC7", seq: 123_456)
        #expect(ResumePoint(decoding: mark.encoded) == mark)
        for bad in ["", " 5", "E1 ", "E1 x", "E 1 2x", String(repeating: "e", count: 300) + " 1"] {
            #expect(ResumePoint(decoding: Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
