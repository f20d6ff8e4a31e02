import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import BooksMachines

/// The history ops answered from the change log: `log`, `show`, `blame`, `list` at an earlier
/// point, `subscribe` from a time, and `undo` through the write path.
@Suite struct ReconcilerHistoryOpsTests {
    /// Three change sets: a client insert (seq 1), a client update (2), a hand edit deleting book 2 (3).
    static func history() -> ReconcilerDriver {
        var driver = ReconcilerDriver("1|Dune|Herbert\n2|Emma|Austen\n")
        driver.write([("i", .insert([BookDraft(id: "3", name: "Ulysses", author: "Joyce")]))])
        driver.write([("u", .update([BookPatch(id: "1", name: "Dune Messiah")]))])
        driver.edit("1|Dune Messiah|Herbert\n3|Ulysses|Joyce\n")
        driver.event()
        return driver
    }

    static func ask(_ driver: inout ReconcilerDriver, _ request: Request) -> Reply? {
        driver.run(.read(request, from: ReplyTarget(.socket, 9), ReadEnvironment()))
        return driver.replies.last { $0.0 == ReplyTarget(.socket, 9) }?.1
    }

    static func undo(_ driver: inout ReconcilerDriver, _ seqs: [UInt64], force: Bool = false) -> Reply? {
        driver.run(.undo(seqs, force: force, requestID: "undo", connection: ReplyTarget(.socket, 8), actor: nil))
        return driver.replies.last { $0.0 == ReplyTarget(.socket, 8) }?.1
    }

    @Test func logSelectsByBoundsIDsAndLimitNewestLast() {
        var driver = Self.history()
        #expect(driver.broadcasts.map(\.source) == [.client, .client, .file])
        let all = Self.ask(&driver, Request(id: "l", op: .log))
        #expect(all?.result?.history?.map(\.seq) == [1, 2, 3])
        #expect(all?.result?.history?.map(\.source) == [.client, .client, .file])
        #expect(all?.result?.oldestSeq == 1)
        #expect(all?.result?.more == false)
        let last = Self.ask(&driver, Request(id: "l", op: .log, limit: 1))
        #expect(last?.result?.history?.map(\.seq) == [3])
        #expect(last?.result?.more == true)
        #expect(Self.ask(&driver, Request(id: "l", op: .log, ids: ["1"]))?.result?.history?.map(\.seq) == [2])
        #expect(
            Self.ask(&driver, Request(id: "l", op: .log, until: HistoryBound(seq: 1)))?.result?.history?.map(\.seq)
                == [1])
        #expect(
            Self.ask(&driver, Request(id: "l", op: .log, since: HistoryBound(seq: 2)))?.result?.history?.map(\.seq)
                == [3])
        let past = HistoryBound(time: ISO8601.format(Date().addingTimeInterval(-3600)))
        #expect(Self.ask(&driver, Request(id: "l", op: .log, until: past))?.result?.history == [])
        let filter = BookFilter([BookCondition(.author, .containsIgnoringCase, "austen")])
        #expect(Self.ask(&driver, Request(id: "l", op: .log, filter: filter))?.result?.history?.map(\.seq) == [3])
        let other = HistoryBound(epoch: "00000000-0000-0000-0000-000000000000", seq: 1)
        #expect(Self.ask(&driver, Request(id: "l", op: .log, since: other))?.error?.code == .invalidArgument)
    }

    @Test func showAndBlameNameTheChangeSetAndItsAuthor() {
        var driver = Self.history()
        let shown = Self.ask(&driver, Request(id: "s", op: .show, seqs: [2]))?.result?.history?.first
        #expect(shown?.updated?.first?.new == Book(id: "1", name: "Dune Messiah", author: "Herbert"))
        #expect(Self.ask(&driver, Request(id: "s", op: .show, seqs: [7]))?.error?.code == .notFound)
        let blame = Self.ask(&driver, Request(id: "b", op: .blame, ids: ["1", "2", "9"]))?.result?.blame
        #expect(blame?.map(\.seq) == [2, 3, 0])
        #expect(blame?.map(\.change) == ["updated", "deleted", nil])
        #expect(blame?[1].source == .file && blame?[1].book == nil)
        let every = Self.ask(&driver, Request(id: "b", op: .blame))?.result?.blame
        #expect(every?.map(\.id) == ["2", "1", "3"])
    }

    @Test func listAtAnEarlierSeqRebuildsTheBooksThen() {
        var driver = Self.history()
        let start = Self.ask(&driver, Request(id: "a", op: .list, at: HistoryBound(seq: 0)))?.result
        #expect(
            start?.books == [
                Book(id: "1", name: "Dune", author: "Herbert"), Book(id: "2", name: "Emma", author: "Austen"),
            ])
        #expect(start?.seq == 0)
        let two = Self.ask(&driver, Request(id: "a", op: .list, sort: BookSort(.name), at: HistoryBound(seq: 2)))
        #expect(two?.result?.books?.map(\.name) == ["Dune Messiah", "Emma", "Ulysses"])
        #expect(Self.ask(&driver, Request(id: "a", op: .list, at: HistoryBound(seq: 9)))?.error?.code == .notFound)
        let now = HistoryBound(time: ISO8601.format(Date().addingTimeInterval(60)))
        #expect(Self.ask(&driver, Request(id: "a", op: .list, at: now))?.result?.books?.count == 2)
    }

    @Test func subscribeFromATimeReplaysTheChangeSetsSinceIt() {
        var driver = Self.history()
        let since = HistoryBound(time: ISO8601.format(Date().addingTimeInterval(-60)))
        _ = Self.ask(&driver, Request(id: "f", op: .subscribe, since: since))
        #expect(driver.subscriptions.last?.1.map(\.seq) == [1, 2, 3])
        let later = HistoryBound(time: ISO8601.format(Date().addingTimeInterval(60)))
        _ = Self.ask(&driver, Request(id: "f", op: .subscribe, since: later))
        #expect(driver.subscriptions.last?.1 == [])
    }

    @Test func undoWritesTheInverseAsItsOwnChangeSet() {
        var driver = Self.history()
        #expect(Self.undo(&driver, [3])?.ok == true)
        #expect(driver.broadcasts.last?.source == .undo)
        #expect(driver.broadcasts.last?.changes.inserted == [Book(id: "2", name: "Emma", author: "Austen")])
        #expect(Self.undo(&driver, [1, 2])?.ok == true)
        #expect(driver.broadcasts.count == 5)
        #expect(driver.text == "1|Dune|Herbert\n2|Emma|Austen\n")
        #expect(Self.undo(&driver, [42])?.error?.code == .notFound)
    }

    @Test func undoLeavesBooksChangedSinceAloneUnlessForced() {
        var driver = Self.history()
        driver.write([("u2", .update([BookPatch(id: "1", name: "Children of Dune")]))])
        let refused = Self.undo(&driver, [2])
        #expect(refused?.error?.code == .conflict)
        #expect(refused?.error?.conflicts?.map(\.id) == ["1"])
        #expect(driver.broadcasts.count == 4)
        let partly = Self.undo(&driver, [1, 2])
        #expect(partly?.ok == true)
        #expect(partly?.result?.refused?.map(\.id) == ["1"])
        #expect(driver.broadcasts.last?.changes.deleted.map(\.id) == ["3"])
        #expect(Self.undo(&driver, [2], force: true)?.ok == true)
        #expect(driver.machine.context.book(id: "1")?.name == "Dune")
    }

    @Test func pastRetentionTheAnswersSaySoAndAResumeResyncs() {
        var driver = Self.history()
        var configuration = driver.machine.configuration
        configuration.historyMaxBytes = 1  // only the newest change set stays
        driver.machine.reconfigure(configuration)
        driver.event(.contentMayHaveChanged)
        let log = Self.ask(&driver, Request(id: "l", op: .log))?.result
        #expect(log?.history?.map(\.seq) == [3])
        #expect(log?.oldestSeq == 3)
        #expect(
            Self.ask(&driver, Request(id: "s", op: .show, seqs: [1]))?.error?.message
                == "change set 1 is no longer in the history kept (the oldest kept is seq 3)")
        #expect(
            Self.ask(&driver, Request(id: "a", op: .list, at: HistoryBound(seq: 0)))?.error?.message
                == "the list at seq 0 is older than the history kept (it can show seq 2 or later)")
        #expect(Self.ask(&driver, Request(id: "a", op: .list, at: HistoryBound(seq: 2)))?.result?.books?.count == 3)
        #expect(
            Self.undo(&driver, [1])?.error?.message
                == "change set 1 is no longer in the history (the oldest kept is seq 3)")
        _ = Self.ask(&driver, Request(id: "f", op: .subscribe, resume: ResumePoint(epoch: "E", seq: 1)))
        #expect(driver.subscriptions.last?.1.first?.reason == "history-trimmed")
    }

    @Test func theChangeLogDropsByCountAgeAndSize() {
        func change(_ seq: UInt64, at seconds: Double, name: String = "x") -> SequencedChangeSet {
            SequencedChangeSet(
                epoch: "E", seq: seq, source: .client, time: Date(timeIntervalSince1970: seconds),
                changes: ChangeSet(inserted: [Book(id: "b\(seq)", name: name, author: "a")]))
        }
        var log = ChangeLog(retention: 3, maxAge: 50)
        for (seq, time) in [(1, 0.0), (2, 10), (3, 90), (4, 100)] { log.append(change(UInt64(seq), at: time)) }
        #expect(log.oldestSeq == 3)
        #expect(log.changes(after: 1, currentSeq: 4) == nil)
        #expect(log.changes(after: 2, currentSeq: 4)?.map(\.seq) == [3, 4])
        var sized = ChangeLog(retention: 10, maxBytes: 300)
        for seq in 1...5 { sized.append(change(UInt64(seq), at: Double(seq), name: String(repeating: "n", count: 40))) }
        #expect(sized.bytes <= 300 && sized.count == 2)
        #expect(sized.firstSeq(atOrAfter: Date(timeIntervalSince1970: 4.5)) == 5)
        var many = ChangeLog(retention: 2000)
        for seq in 1...5000 { many.append(change(UInt64(seq), at: Double(seq))) }
        #expect(many.count == 2000 && many.oldestSeq == 3001 && many[1999].seq == 5000)
    }
}
