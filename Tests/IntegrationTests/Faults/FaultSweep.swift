// The I/O-fault sweep: count the calls a path makes, then fail each one in turn with each kind
// of error and check what the client, the file, the subscribers and the next request see.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc

/// A client write path and the exact file it must leave.
enum WritePath: String, CaseIterable {
    /// An insert into an untouched text file: `AppendWriter` with its `AppendIntentRecord`.
    case append
    /// An update: the full rewrite through `AtomicFileWriter` (temporary file, `RENAME_EXCHANGE`).
    case rewrite

    /// The request of case `index` and the file it must produce from `before`.
    func operation(_ index: Int, before: [UInt8], client: RequestClient) -> (Request, [UInt8]) {
        switch self {
        case .append:
            let row = "a\(index)|Appended \(index)|Fault"
            let draft = BookDraft(id: "a\(index)", name: "Appended \(index)", author: "Fault")
            return (Request(id: client.makeID(), op: .insert, books: [draft]), before + Array((row + "\n").utf8))
        case .rewrite:
            let lines = BookFile.lines(before)
            let name = "Renamed \(index)"
            let changed = lines.map { $0.hasPrefix("s1|") ? "s1|\(name)|Author 1" : $0 }
            return (
                Request(id: client.makeID(), op: .update, patches: [BookPatch(id: "s1", name: name)]),
                Array(changed.joined(separator: "\n").utf8)
            )
        }
    }
}

/// One fault: the `n`-th call of `group` fails with `kind`.
struct FaultCase: CustomStringConvertible {
    var group: FaultShim.Group
    var kind: FaultShim.Kind
    var n: Int
    var description: String { "\(group.rawValue)#\(n) \(kind.rawValue)" }
}

/// What a sweep did, for the summary line and docs/RELIABILITY.md.
struct SweepSummary: CustomStringConvertible {
    var path: String
    var counts: [FaultShim.Group: Int] = [:]
    var cases = 0
    var fired = 0
    var failedReplies = 0
    /// Cases whose call did not happen (the path made fewer calls than counted).
    var notFired: [String] = []
    /// Cases run a second time because their call came on another thread the first time.
    var retried = 0
    /// Problems found by a sweep that runs several benches (the start sweep).
    var problems: [String] = []
    var description: String {
        let calls = FaultShim.Group.allCases.compactMap { g in counts[g].map { "\(g.rawValue) \($0)" } }
        return "\(path): calls [\(calls.joined(separator: ", "))], \(cases) cases, \(fired) faults injected, "
            + "\(failedReplies) clear errors, the rest succeeded"
            + (retried == 0 ? "" : "; \(retried) run twice")
            + (notFired.isEmpty ? "" : "; not injected: \(notFired.joined(separator: ", "))")
    }
}

enum FaultSweep {
    /// The cases for `counts`: every call of every group, failed with each kind that applies.
    static func cases(for counts: [FaultShim.Group: Int]) -> [FaultCase] {
        FaultShim.Group.allCases.flatMap { group in
            FaultShim.Kind.kinds(for: group).flatMap { kind in
                (0..<(counts[group] ?? 0)).map { FaultCase(group: group, kind: kind, n: $0 + 1) }
            }
        }
    }

    /// The thread carrying out the watcher's events (a dispatch thread of the engine's queue,
    /// named `booksd-events` while it does, since the shared inotify hub): its
    /// re-read of the daemon's own write races with the reply, so a write's sweep leaves it out
    /// (the read sweep covers it).
    static let watcherThread = "booksd-events"

    /// Counts the calls of one write on `path`, then runs every case; returns the summary.
    static func sweepWrites(_ path: WritePath, on bench: FaultBench) -> SweepSummary {
        var summary = SweepSummary(path: path.rawValue)
        var index = 0
        let offset = bench.shim.logOffset
        bench.shim.count(skipping: watcherThread)
        runWrite(path, index: index, fault: nil, on: bench, summary: &summary)
        summary.counts = bench.shim.counts(since: offset)
        bench.settle()
        for fault in cases(for: summary.counts) {
            index += 1
            runWrite(path, index: index, fault: fault, on: bench, summary: &summary)
            bench.settle()
        }
        return summary
    }

    /// One write with `fault` armed: a clear error or success, the file exactly the old or the new
    /// version, nothing left in the directory, the daemon serving, and the write retried succeeds.
    static func runWrite(
        _ path: WritePath, index: Int, fault: FaultCase?, on bench: FaultBench, summary: inout SweepSummary
    ) {
        let label = "\(path.rawValue) \(fault?.description ?? "count")"
        let before = bench.fileBytes
        let (request, expected) = path.operation(index, before: before, client: bench.client)
        let offset = bench.shim.logOffset
        if let fault {
            summary.cases += 1
            bench.shim.fail(fault.group, fault.kind, at: fault.n, skipping: watcherThread)
        }
        let reply = try? bench.client.request(request, timeout: 15)
        // Counting and failing stop at the reply: the re-read the watcher defers after the
        // daemon's own write comes later (on its own timer) and is the read path's sweep.
        bench.shim.off()
        if fault != nil {
            if bench.shim.injected(since: offset) != nil {
                summary.fired += 1
            } else {
                summary.notFired.append(label + " [" + bench.shim.entries(since: offset).joined(separator: "; ") + "]")
            }
        }
        let after = bench.fileBytes
        guard let reply else {
            bench.problem(label, "no reply within 15 s (hang or crash)")
            bench.checkServing(label)
            return
        }
        if reply.ok {
            if !Rel.sameBytes(after, expected) {
                bench.problem(label, "acknowledged, but the file is not the new version: \(describe(after, expected))")
            }
        } else {
            summary.failedReplies += 1
            let message = reply.error?.message ?? ""
            if let fault, !fault.kind.isTransparent {
                // Clear: it names the system error injected.
                let code = fault.kind == .enospc ? ENOSPC : EIO
                if !message.contains(TestFiles.errorText(code)) {
                    bench.problem(
                        label, "the error does not say \(TestFiles.errorText(code)): \(message.debugDescription)")
                }
            } else {
                bench.problem(label, "the daemon did not hide the fault: \(message)")
            }
            if !Rel.sameBytes(after, before) {
                bench.problem(
                    label, "refused (\(message)), but the file is not the old version: \(describe(after, before))")
            }
        }
        let left = bench.leftovers()
        if !left.isEmpty { bench.problem(label, "files left in the book directory: \(left)") }
        bench.drainEvents(label: label)
        guard bench.checkServing(label) else { return }
        if !reply.ok {
            // The retry: the same write again, now without a fault.
            let now = bench.fileBytes
            let (again, expectedAgain) = path.operation(index, before: now, client: bench.client)
            let retried = try? bench.client.request(again, timeout: 15)
            if retried?.ok != true {
                bench.problem(
                    label, "the retry failed: \(retried.map { "\($0.error?.description ?? "")" } ?? "no reply")")
            } else if !Rel.sameBytes(bench.fileBytes, expectedAgain) {
                bench.problem(label, "the retry left a file that is not the new version")
            }
        }
        bench.drainEvents(label: label)
    }

    /// Where two versions differ, for messages.
    static func describe(_ actual: [UInt8], _ wanted: [UInt8]) -> String {
        let at = Rel.firstDifference(actual, wanted) ?? 0
        let tail = { (b: [UInt8]) in String(decoding: b[min(at, b.count)...].prefix(60), as: UTF8.self) }
        return "\(actual.count) bytes instead of \(wanted.count), first difference at \(at): "
            + "\(tail(actual).debugDescription) instead of \(tail(wanted).debugDescription)"
    }
}

extension FaultSweep {
    /// Counts the calls the watcher makes to take in one hand edit (a file renamed over the book
    /// file, as most editors save), then fails each in turn.
    static func sweepReads(on bench: FaultBench) -> SweepSummary {
        var summary = SweepSummary(path: "watcher read")
        var index = 0
        let offset = bench.shim.logOffset
        runRead(index: index, fault: nil, on: bench, summary: &summary)
        summary.counts = bench.shim.counts(since: offset)
        bench.settle()
        // How many calls one edit makes varies with how the kernel coalesces its events (one
        // read or two): a case whose call did not happen is run again, up to three times.
        for fault in cases(for: summary.counts) {
            summary.cases += 1
            for attempt in 1...3 {
                index += 1
                let fired = runRead(index: index, fault: fault, on: bench, summary: &summary, lastAttempt: attempt == 3)
                bench.settle()
                if fired { break }
            }
        }
        return summary
    }

    /// One hand edit (one book renamed, one added) with `fault` armed: no delete is broadcast,
    /// the daemon ends up serving exactly the edited file without another edit, and a client
    /// write then succeeds on top of it.
    /// Returns whether the fault was injected (true without one); a fault not injected is
    /// listed in the summary on the `lastAttempt` only.
    @discardableResult
    static func runRead(
        index: Int, fault: FaultCase?, on bench: FaultBench, summary: inout SweepSummary, lastAttempt: Bool = true
    ) -> Bool {
        let label = "read \(fault?.description ?? "count")"
        let before = bench.fileBytes
        let lines = BookFile.lines(before).map { $0.hasPrefix("s2|") ? "s2|Edited \(index)|Author 2" : $0 }
        let edited = Array((lines.joined(separator: "\n") + "h\(index)|Hand \(index)|Fault\n").utf8)
        let offset = bench.shim.logOffset
        if let fault {
            bench.shim.fail(fault.group, fault.kind, at: fault.n)
        } else {
            bench.shim.count()
        }
        Rel.writeRenameOver(bench.bookFile, edited)
        // The daemon must take the edit in by itself (no second edit comes to trigger a re-read).
        let served = bench.checkServing(label)
        MonotonicClock.sleep(seconds: 0.05)
        bench.shim.off()
        var fired = true
        if fault != nil {
            fired = bench.shim.injected(since: offset) != nil
            if fired {
                summary.fired += 1
            } else if lastAttempt {
                summary.notFired.append(label)
            }
        }
        bench.drainEvents(label: label, wait: 0.02)
        guard served else { return fired }
        bench.checkClientWrite(label, index: 10_000 + index)
        bench.drainEvents(label: label)
        return fired
    }
}
