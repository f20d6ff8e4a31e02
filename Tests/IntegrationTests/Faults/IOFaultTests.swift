// "I/O errors at every call site" (docs/RELIABILITY.md): a preloaded library fails the
// N-th open/read/write/pwrite/fsync/fdatasync/rename/ftruncate/close on the book directory with
// EIO, ENOSPC, EINTR or a short transfer, for every N a write path or the watcher's read makes.
import BooksTestSupport
import Testing

extension ReliabilitySuite {
    @Suite(.serialized)
    struct IOFaultTests {
        /// The append fast path (`AppendWriter`, `AppendIntentRecord`) under every fault.
        @Test func appendPathSurvivesEveryIOFault() throws {
            try sweep(.append)
        }

        /// The full rewrite (`AtomicFileWriter`) under every fault.
        @Test func rewritePathSurvivesEveryIOFault() throws {
            try sweep(.rewrite)
        }

        /// The watcher's read of a hand edit (`FileReader`) under every fault: never a delete.
        @Test func watcherReadSurvivesEveryIOFault() throws {
            let bench = try FaultBench(name: "read")
            let summary = FaultSweep.sweepReads(on: bench)
            print("I/O faults, \(summary)")
            #expect(summary.cases > 0 && summary.fired == summary.cases, "\(summary)")
            #expect(bench.deletes.isEmpty, "\(bench.deletes.joined(separator: "\n"))")
            #expect(
                bench.problems.isEmpty, "\(bench.problems.count) problems:\n\(bench.problems.joined(separator: "\n"))")
        }

        /// The append's clean-up after a failed fdatasync or write, under a second fault.
        @Test func appendCleanupSurvivesASecondFault() throws {
            let bench = try FaultBench(name: "cleanup")
            let summary = FaultSweep.sweepAppendCleanup(on: bench)
            print("I/O faults, \(summary)")
            #expect(summary.cases > 0 && summary.fired == summary.cases, "\(summary)")
            #expect(
                bench.problems.isEmpty, "\(bench.problems.count) problems:\n\(bench.problems.joined(separator: "\n"))")
        }

        /// The id assignment of a row typed by hand (read and rewrite on the watcher's thread).
        @Test func idAssignmentSurvivesEveryIOFault() throws {
            let bench = try FaultBench(name: "ids")
            let summary = FaultSweep.sweepIDAssignment(on: bench)
            print("I/O faults, \(summary)")
            #expect(summary.cases > 0 && summary.fired == summary.cases, "\(summary)")
            #expect(
                bench.problems.isEmpty, "\(bench.problems.count) problems:\n\(bench.problems.joined(separator: "\n"))")
        }

        /// The load at start, with each of its calls failing.
        @Test func startSurvivesEveryIOFault() throws {
            let summary = try FaultSweep.sweepStart()
            print("I/O faults, \(summary)")
            #expect(summary.cases > 0 && summary.fired == summary.cases, "\(summary)")
            #expect(
                summary.problems.isEmpty,
                "\(summary.problems.count) problems:\n\(summary.problems.joined(separator: "\n"))")
        }

        /// A failed `fsync` of the directory after the rename is tried again; when that fails too,
        /// the write stands (it is in place and served) and the daemon logs that a power cut may
        /// undo it.
        @Test func aFailedDirectorySyncIsRetriedThenReported() throws {
            let bench = try FaultBench(name: "dirsync")
            let warning = "syncing its directory failed"
            let once = [FaultCase(group: .fsync, kind: .eio, n: 2)]
            let twice = once + [FaultCase(group: .fsync, kind: .eio, n: 3)]
            for (index, faults) in [once, twice].enumerated() {
                let before = bench.fileBytes
                let (request, expected) = WritePath.rewrite.operation(index, before: before, client: bench.client)
                let offset = bench.shim.logOffset
                let logged = Rel.count(warning, in: bench.daemon.logText)
                bench.shim.fail(faults, skipping: FaultSweep.watcherThread)
                let reply = try bench.client.request(request, timeout: 15)
                bench.shim.off()
                #expect(bench.shim.allInjected(since: offset).count == faults.count)
                #expect(reply.ok, "\(reply)")
                #expect(Rel.sameBytes(bench.fileBytes, expected))
                let expectWarning = faults.count == 2
                let reported = eventuallyBlocking(timeout: expectWarning ? 5 : 0.3) {
                    Rel.count(warning, in: bench.daemon.logText) > logged
                }
                #expect(reported == expectWarning, "\(faults): directory sync warning logged: \(reported)")
                bench.checkServing("directory sync \(faults)")
                bench.settle()
            }
            #expect(bench.problems.isEmpty, "\(bench.problems.joined(separator: "\n"))")
        }

        private func sweep(_ path: WritePath) throws {
            let bench = try FaultBench(name: path.rawValue)
            let summary = FaultSweep.sweepWrites(path, on: bench)
            print("I/O faults, \(summary)")
            #expect(summary.cases > 0 && summary.fired == summary.cases, "\(summary)")
            #expect(
                bench.problems.isEmpty, "\(bench.problems.count) problems:\n\(bench.problems.joined(separator: "\n"))")
        }
    }
}
