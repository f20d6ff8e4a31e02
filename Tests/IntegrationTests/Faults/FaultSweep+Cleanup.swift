// Second faults: a call that fails while the daemon cleans up after a first failure (the
// append's cut-back: open of /proc/self/fd, pread, ftruncate, fdatasync, close), which a single
// fault never reaches.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc

extension FaultSweep {
    /// The first faults whose clean-up is swept: the append's `fdatasync` of the book file fails
    /// (all rows to cut back), or its write to the book file is cut short and the rest fails (a
    /// partial row to cut back). Their numbers come from a counting run (the intent record's own
    /// write and sync come first).
    static func appendCleanupTriggers(on bench: FaultBench) -> [[FaultCase]] {
        let offset = bench.shim.logOffset
        bench.shim.count(skipping: watcherThread)
        let (request, _) = WritePath.append.operation(19_999, before: bench.fileBytes, client: bench.client)
        _ = try? bench.client.request(request, timeout: 15)
        bench.shim.off()
        bench.settle()
        let lines = bench.shim.entries(since: offset)
        func number(_ group: FaultShim.Group) -> Int? {
            for line in lines {
                let fields = line.split(separator: " ").map(String.init)
                if fields.count >= 4, fields[0] == group.rawValue, fields[3] == bench.bookFile {
                    return Int(fields[2])
                }
            }
            return nil
        }
        guard let sync = number(.fdatasync), let write = number(.write) else {
            bench.problem("append clean-up", "no fdatasync or write of the book file counted")
            return []
        }
        return [
            [FaultCase(group: .fdatasync, kind: .eio, n: sync)],
            [FaultCase(group: .write, kind: .short, n: write), FaultCase(group: .write, kind: .eio, n: write + 1)],
        ]
    }

    /// For each trigger: counts the calls after it, then fails each of them too (EIO, ENOSPC,
    /// EINTR). The write must fail with a clear error; the file is the old version, or — only
    /// when the clean-up itself failed — keeps the rows, which the error then says, and which
    /// the daemon serves as they are; a retry succeeds or finds the book in place.
    static func sweepAppendCleanup(on bench: FaultBench) -> SweepSummary {
        var summary = SweepSummary(path: "append clean-up")
        var index = 20_000
        for trigger in appendCleanupTriggers(on: bench) {
            let offset = bench.shim.logOffset
            index += 1
            runCleanup(index: index, trigger: trigger, second: nil, on: bench, summary: &summary)
            // The calls made after the trigger fired (the clean-up), by group and number.
            let lines = bench.shim.entries(since: offset)
            guard let last = lines.lastIndex(where: { $0.hasPrefix("FAULT ") }) else {
                bench.problem("append clean-up", "the trigger \(trigger) did not fire")
                continue
            }
            let after: [(FaultShim.Group, Int)] = lines[(last + 1)...]
                .compactMap { line in
                    let f = line.split(separator: " ")
                    guard f.count >= 3, let g = FaultShim.Group(rawValue: String(f[0])), let n = Int(f[2]) else {
                        return nil
                    }
                    return (g, n)
                }
            for (group, _) in after { summary.counts[group, default: 0] += 1 }
            bench.settle()
            for (group, n) in after {
                for kind in [FaultShim.Kind.eio, .enospc, .eintr] {
                    index += 1
                    let second = FaultCase(group: group, kind: kind, n: n)
                    runCleanup(index: index, trigger: trigger, second: second, on: bench, summary: &summary)
                    bench.settle()
                }
            }
        }
        return summary
    }

    /// One append with `trigger` and `second` armed.
    static func runCleanup(
        index: Int, trigger: [FaultCase], second: FaultCase?, on bench: FaultBench, summary: inout SweepSummary
    ) {
        let faults = trigger + (second.map { [$0] } ?? [])
        let label = "append clean-up \(faults.map(\.description).joined(separator: " + "))"
        let before = bench.fileBytes
        let (request, expected) = WritePath.append.operation(index, before: before, client: bench.client)
        let offset = bench.shim.logOffset
        summary.cases += 1
        bench.shim.fail(faults, skipping: watcherThread)
        let reply = try? bench.client.request(request, timeout: 15)
        bench.shim.off()
        let injected = bench.shim.allInjected(since: offset)
        if injected.count == faults.count { summary.fired += 1 } else { summary.notFired.append(label) }
        let after = bench.fileBytes
        guard let reply else {
            bench.problem(label, "no reply within 15 s (hang or crash)")
            bench.checkServing(label)
            return
        }
        let message = reply.error?.message ?? ""
        if reply.ok {
            bench.problem(label, "acknowledged although its fdatasync or write failed")
        } else {
            summary.failedReplies += 1
            if !message.contains(TestFiles.errorText(EIO)) {
                bench.problem(label, "the error does not name the failure: \(message.debugDescription)")
            }
        }
        let cleanupFailed = second.map { $0.kind != .eintr } ?? false
        let leftInFile = message.contains("was left in the file")
        if !Rel.sameBytes(after, before) {
            if !(cleanupFailed && leftInFile && after.starts(with: before) && expected.starts(with: after)) {
                bench.problem(label, "the file is not the old version (\(message)): \(describe(after, before))")
            }
        } else if leftInFile {
            bench.problem(label, "the error says a row was left in the file, but the file is the old version")
        }
        bench.drainEvents(label: label)
        guard bench.checkServing(label) else { return }
        let left = bench.leftovers()
        if !left.isEmpty { bench.problem(label, "files left in the book directory: \(left)") }
        // The retry: succeeds, or (the rows stayed) finds the book exactly as asked.
        let (again, _) = WritePath.append.operation(index, before: bench.fileBytes, client: bench.client)
        let retried = try? bench.client.request(again, timeout: 15)
        let inPlace =
            (try? bench.client.get("a\(index)"))?.0 == Book(id: "a\(index)", name: "Appended \(index)", author: "Fault")
        if retried?.ok != true && !inPlace {
            bench.problem(
                label, "the retry failed and the book is not there: \(retried?.error?.description ?? "no reply")")
        }
        bench.drainEvents(label: label)
    }
}
