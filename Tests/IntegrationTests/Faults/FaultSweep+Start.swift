// The load at start: booksd started with a fault armed in its first file calls (the stale
// temporary and intent-record clean-up, then the read of the book file).
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc

extension FaultSweep {
    /// Counts the book-directory calls of a start, then starts a daemon with each of them failing
    /// (EIO, ENOSPC, EINTR): it must start, serve exactly the file within 3 s (re-reading by itself
    /// after a failed read), broadcast no delete, and take a client write.
    static func sweepStart() throws -> SweepSummary {
        var summary = SweepSummary(path: "start")
        let counting = try FaultBench(name: "start", startFaults: nil)
        summary.counts = counting.shim.counts(since: 0)
        counting.checkServing("start count")
        let countingProblems = counting.problems
        var problems = countingProblems
        for group in FaultShim.Group.allCases {
            for n in 0..<(summary.counts[group] ?? 0) {
                for kind in [FaultShim.Kind.eio, .enospc, .eintr] {
                    let fault = FaultCase(group: group, kind: kind, n: n + 1)
                    let label = "start \(fault)"
                    summary.cases += 1
                    let bench = try FaultBench(name: "start", startFaults: [fault])
                    if bench.shim.injected(since: 0) != nil {
                        summary.fired += 1
                    } else {
                        summary.notFired.append(label)
                    }
                    bench.drainEvents(label: label)
                    if bench.checkServing(label) { bench.checkClientWrite(label, index: summary.cases) }
                    bench.drainEvents(label: label)
                    problems += bench.problems
                }
            }
        }
        summary.problems = problems
        return summary
    }
}
