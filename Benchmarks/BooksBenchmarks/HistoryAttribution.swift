import BooksClient
import BooksTestSupport
import FoundationEssentials

/// What keeping attribution costs a durable insert (`BooksBenchmarks history`, part 1), three ways
/// in the same run: the latency of inserts sent to two booksd in turn (one keeping no actor), the
/// daemons' CPU time over those inserts, and in this process the encoding the actor adds to each
/// write (its history journal record and its change event).
extension HistoryBenchmark {
    /// Rounds of single-book inserts, one on each daemon in turn (the order alternating), so that
    /// both see the same moments of the shared machine's load; each daemon's CPU time (all its
    /// threads, `/proc/PID/task/*/schedstat`) is read around each round.
    func attributionRounds(
        _ figures: inout Figures, on: (DaemonProcess, LineClient), off: (DaemonProcess, LineClient),
        counter: inout Int
    ) {
        for round in 0..<rounds {
            Console.error("  attribution round \(round + 1)/\(rounds)")
            var kept: [Double] = []
            var none: [Double] = []
            let cpuBefore = (on.0.schedMS, off.0.schedMS)
            for k in 0..<insertsPerRound {
                for attributed in k % 2 == 0 ? [true, false] : [false, true] {
                    let latency = Self.inserts(attributed ? on.1 : off.1, count: 1, counter: &counter)
                    if attributed { kept += latency } else { none += latency }
                }
            }
            let count = Double(insertsPerRound)
            figures.attributedCPU.append((on.0.schedMS - cpuBefore.0) / count)
            figures.unattributedCPU.append((off.0.schedMS - cpuBefore.1) / count)
            figures.attributed += kept
            figures.unattributed += none
            figures.attributedRounds.append(Distribution(kept).p50)
            figures.unattributedRounds.append(Distribution(none).p50)
        }
        figures.encoding = Self.encodingCost()
    }

    /// Microseconds per write of encoding a single-book insert's history journal record and its
    /// change event (`subscribe --json`'s line), with a socket client's actor and without: the
    /// daemon's only per-write work for attribution (the user name and program are read once per
    /// connection). Medians of 5 batches of 20,000.
    static func encodingCost() -> (withActor: Double, without: Double) {
        let book = Book(id: bookID(4242), name: "History 4242", author: "Bench Writer")
        let row = Array("\(book.id)|\(book.name)|\(book.author)\n".utf8)
        var change = SequencedChangeSet(
            epoch: "5F0C6F5E-3B1A-4E0B-9A61-7C1B2E9D4F10", seq: 4242, source: .client, time: Date(),
            changes: ChangeSet(inserted: [book]),
            actor: ChangeActor(uid: 1000, user: "alice", pid: 424_242, program: "booksctl"))
        let withActor = microseconds(change, row)
        change.actor = nil
        return (withActor, microseconds(change, row))
    }

    private static func microseconds(_ change: SequencedChangeSet, _ row: [UInt8]) -> Double {
        let transition = LedgerTransition(splice: .append(row, to: 61_000_000), applied: change)
        let perBatch = 20_000
        var batches: [Double] = []
        var sink = 0
        for _ in 0..<5 {
            let started = Stopwatch.now()
            for _ in 0..<perBatch {
                sink &+= HistoryJournalFormat.encode(transition).count
                sink &+= MessageEncoder.changeEvent(change).map { MessageEncoder.encode($0).count } ?? 0
            }
            batches.append(Double(Stopwatch.now() - started) / 1e3 / Double(perBatch))
        }
        if sink == 0 { Console.error("nothing encoded") }
        return Stopwatch.median(batches)
    }
}
