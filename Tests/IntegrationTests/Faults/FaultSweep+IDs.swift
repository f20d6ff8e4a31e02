// The id assignment: a row typed by hand without an id (`name|author`) makes the daemon rewrite
// the file with an id for it, from the watcher's thread (read, then `AtomicFileWriter`).
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc

extension FaultSweep {
    /// Counts the calls of taking in one typed row and giving it an id, then fails each in turn.
    static func sweepIDAssignment(on bench: FaultBench) -> SweepSummary {
        var summary = SweepSummary(path: "id assignment")
        var index = 30_000
        let offset = bench.shim.logOffset
        runIDAssignment(index: index, fault: nil, on: bench, summary: &summary)
        summary.counts = bench.shim.counts(since: offset)
        bench.settle()
        for fault in cases(for: summary.counts) {
            index += 1
            runIDAssignment(index: index, fault: fault, on: bench, summary: &summary)
            bench.settle()
        }
        return summary
    }

    /// One typed row with `fault` armed: the file stays the edited version or becomes it with an
    /// id on that row and nothing else changed; no delete is broadcast; the daemon serves the file;
    /// at the latest the next client write gives the row its id.
    static func runIDAssignment(index: Int, fault: FaultCase?, on bench: FaultBench, summary: inout SweepSummary) {
        let label = "id assignment \(fault?.description ?? "count")"
        let typed = "Typed \(index)|Someone"
        let edited = bench.fileBytes + Array((typed + "\n").utf8)
        let offset = bench.shim.logOffset
        if let fault {
            summary.cases += 1
            bench.shim.fail(fault.group, fault.kind, at: fault.n)
        } else {
            bench.shim.count()
        }
        Rel.writeRenameOver(bench.bookFile, edited)
        // Wait for the id, or (a fault may leave the row without one until the next write) until
        // the daemon has left the directory alone for 150 ms after the fault.
        let deadline = MonotonicClock.seconds() + 3
        var quietSince = (offset: bench.shim.logOffset, time: MonotonicClock.seconds())
        while MonotonicClock.seconds() < deadline, assignedID(typed, in: bench.fileBytes) == nil {
            MonotonicClock.sleep(seconds: 0.02)
            let now = bench.shim.logOffset
            if now != quietSince.offset {
                quietSince = (now, MonotonicClock.seconds())
            } else if fault != nil, bench.shim.injected(since: offset) != nil,
                MonotonicClock.seconds() - quietSince.time > 0.15
            {
                break
            }
        }
        MonotonicClock.sleep(seconds: 0.05)
        bench.shim.off()
        if fault != nil {
            if bench.shim.injected(since: offset) != nil {
                summary.fired += 1
            } else {
                summary.notFired.append(label)
            }
        }
        let after = bench.fileBytes
        if !Rel.sameBytes(after, edited) {
            if let id = assignedID(typed, in: after) {
                let withID = BookFile.render(
                    BookFile.lines(edited).dropLast().map { $0 == typed ? "\(id)|\(typed)" : $0 })
                if !Rel.sameBytes(after, withID) {
                    bench.problem(label, "the id assignment changed more than the row: \(describe(after, withID))")
                }
            } else {
                bench.problem(label, "the file is neither the edit nor the edit with an id: \(describe(after, edited))")
            }
        }
        bench.drainEvents(label: label)
        guard bench.checkServing(label) else { return }
        let left = bench.leftovers()
        if !left.isEmpty { bench.problem(label, "files left in the book directory: \(left)") }
        // A client write: succeeds and leaves the typed row with an id.
        let (request, _) = WritePath.append.operation(index, before: after, client: bench.client)
        let reply = try? bench.client.request(request, timeout: 15)
        if reply?.ok != true {
            bench.problem(label, "a client write after the edit failed: \(reply?.error?.description ?? "no reply")")
        } else if assignedID(typed, in: bench.fileBytes) == nil {
            bench.problem(label, "the typed row still has no id after a client write")
        }
        bench.drainEvents(label: label)
    }

    /// The id the row `typed` (`name|author`) was given in `file`, if it has one.
    static func assignedID(_ typed: String, in file: [UInt8]) -> String? {
        BookFile.lines(file).first { $0.hasSuffix("|" + typed) && $0.split(separator: "|").count == 3 }
            .map { String($0.split(separator: "|")[0]) }
    }
}
