// The id assignment: a row typed by hand without an id (`name|author`) makes the daemon rewrite
// the file with an id for it, from the watcher's thread (read, then `AtomicFileWriter`). Only
// that thread's calls count: the re-reads the daemon defers to a timer after its own write come
// at times that vary (the read sweep covers them).
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
        // Up to the end of the rewrite (the temporary file's descriptor closed after its unlink):
        // the re-read of the daemon's own write may come before or after the counting stops.
        let entries = bench.shim.entries(since: offset)
        let end = entries.lastIndex { $0.hasSuffix("(deleted)") }.map { $0 + 1 } ?? entries.endIndex
        for line in entries[..<end] {
            if let group = line.split(separator: " ").first.flatMap({ FaultShim.Group(rawValue: String($0)) }) {
                summary.counts[group, default: 0] += 1
            }
        }
        bench.settle()
        for fault in cases(for: summary.counts) {
            // A case whose call did not come on the watcher's thread (the edit was taken in by a
            // timer's re-read instead) is run once more.
            for attempt in 0..<2 {
                index += 1
                let fired = runIDAssignment(
                    index: index, fault: fault, on: bench, summary: &summary, last: attempt == 1)
                bench.settle()
                if fired { break }
                summary.retried += 1
            }
        }
        return summary
    }

    /// One typed row with `fault` armed: the file stays the edited version or becomes it with an
    /// id on that row and nothing else changed; no delete is broadcast; the daemon serves the file;
    /// at the latest the next client write gives the row its id.
    @discardableResult
    static func runIDAssignment(
        index: Int, fault: FaultCase?, on bench: FaultBench, summary: inout SweepSummary, last: Bool = true
    ) -> Bool {
        let label = "id assignment \(fault?.description ?? "count")"
        let typed = "Typed \(index)|Someone"
        let edited = bench.fileBytes + Array((typed + "\n").utf8)
        let offset = bench.shim.logOffset
        if let fault {
            bench.shim.fail(fault.group, fault.kind, at: fault.n, onlyOn: watcherThread)
        } else {
            bench.shim.count(onlyOn: watcherThread)
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
        let fired = fault == nil || bench.shim.injected(since: offset) != nil
        if fault != nil {
            if fired {
                summary.cases += 1
                summary.fired += 1
            } else if last {
                summary.cases += 1
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
        guard bench.checkServing(label) else { return fired }
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
        return fired
    }

    /// The id the row `typed` (`name|author`) was given in `file`, if it has one.
    static func assignedID(_ typed: String, in file: [UInt8]) -> String? {
        BookFile.lines(file).first { $0.hasSuffix("|" + typed) && $0.split(separator: "|").count == 3 }
            .map { String($0.split(separator: "|")[0]) }
    }
}
