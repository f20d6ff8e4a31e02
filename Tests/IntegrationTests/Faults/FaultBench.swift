// One booksd with the fault library preloaded, a client and a subscriber, and the checks every
// I/O-fault case makes (docs/RELIABILITY.md, "I/O errors at every call site").
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc

/// A daemon under the fault library: the book file lives alone in `books/` (the only directory
/// whose calls count), the control file, call log, socket and daemon log beside it.
final class FaultBench {
    let directory: TemporaryDirectory
    let bookFile: String
    let shim: FaultShim
    let daemon: DaemonProcess
    let client: RequestClient
    let subscriber: RequestClient
    /// Every problem found, one line each (case, what went wrong).
    private(set) var problems: [String] = []
    /// Delete events the subscriber saw (none are expected: no case deletes a book).
    private(set) var deletes: [String] = []

    /// Starts booksd on a file of `rows` seed books (`s0`…) plus the preserved lines, with
    /// `startFaults` armed from the start (nil: counting from the start; none: nothing counted).
    init(name: String, rows: Int = 20, startFaults: [FaultCase]? = []) throws {
        directory = try TemporaryDirectory(prefix: "faults-\(name)")
        let books = directory.makeDirectory("books")
        bookFile = books + "/books.txt"
        var seed = BookFile.preservedLines
        for i in 0..<rows { seed.append("s\(i)|Seed \(i)|Author \(i)") }
        Rel.writeRenameOver(bookFile, BookFile.render(seed))
        shim = FaultShim(
            bookDirectory: books, controlPath: directory.file("control"), logPath: directory.file("calls.log"))
        switch startFaults {
        case nil: shim.count()
        case let faults? where faults.isEmpty: shim.off()
        case let faults?: shim.fail(faults)
        }
        var options = DaemonOptions(file: bookFile, socket: directory.file("s.sock"), logPath: directory.file("d.log"))
        options.logLevel = "debug"
        // The saved history lives outside the book directory: the sweep counts and fails the
        // calls on the book file's directory only (the history's own I/O is not swept here).
        options.settings = ["state_directory=\(directory.makeDirectory("history"))"]
        options.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"].merging(shim.environment) { $1 }
        daemon = try DaemonProcess(options, readyTimeout: 20)
        client = try RequestClient(socket: directory.file("s.sock"))
        subscriber = try RequestClient(socket: directory.file("s.sock"))
        let reply = try subscriber.request(Request(id: "sub", op: .subscribe))
        guard reply.ok else { throw TestSupportError("subscribe refused: \(reply)") }
        settle()  // whatever the start-up still reads must not count in the first count
    }

    deinit {
        client.close()
        subscriber.close()
        daemon.stop()
    }

    /// The book file's bytes now.
    var fileBytes: [UInt8] { TestFiles.readBytes(bookFile) ?? [] }

    /// Records a problem of case `label`.
    func problem(_ label: String, _ text: String) { problems.append("\(label): \(text)") }

    /// Reads the subscriber's pending events; remembers every delete.
    func drainEvents(label: String, wait: Double = 0.01) {
        while let message = subscriber.readMessage(timeout: wait) {
            if case .event(let event) = message, let deleted = event.deleted, !deleted.isEmpty {
                deletes.append("\(label): deleted \(deleted.map(\.id))")
                problem(label, "a delete event was broadcast for \(deleted.map(\.id))")
            }
        }
    }

    /// The daemon still runs, answers `ping`, and serves what the file holds (within 3 s: after
    /// a failed write or read it may re-read first). Returns false after recording a problem.
    @discardableResult
    func checkServing(_ label: String) -> Bool {
        guard daemon.isRunning else {
            problem(label, "booksd exited\n\(daemon.logTail(30))")
            return false
        }
        guard let pong = try? client.request(Request(id: client.makeID(), op: .ping), timeout: 10), pong.ok else {
            problem(label, "no answer to ping")
            return false
        }
        var served: [String: Book] = [:]
        var onDisk: [String: Book] = [:]
        let deadline = MonotonicClock.seconds() + 3
        repeat {
            served = (try? client.list().byID) ?? [:]
            onDisk = BookFile.books(fileBytes)
            if served == onDisk { return true }
            MonotonicClock.sleep(seconds: 0.02)
        } while MonotonicClock.seconds() < deadline
        let missing = onDisk.keys.filter { served[$0] != onDisk[$0] }.sorted()
        let extra = served.keys.filter { onDisk[$0] == nil }.sorted()
        problem(label, "served books differ from the file after 3 s (not served: \(missing), not in file: \(extra))")
        return false
    }

    /// A client insert (book `a<index>`) succeeds and leaves the file exactly one row longer.
    func checkClientWrite(_ label: String, index: Int) {
        let before = fileBytes
        let (request, expected) = WritePath.append.operation(index, before: before, client: client)
        let reply = try? client.request(request, timeout: 15)
        if reply?.ok != true {
            problem(label, "a client write failed: \(reply?.error?.description ?? "no reply")")
        } else if !Rel.sameBytes(fileBytes, expected) {
            problem(label, "the client write left \(FaultSweep.describe(fileBytes, expected))")
        }
    }

    /// Temporary or intent files left in the book directory.
    func leftovers() -> [String] {
        TestFiles.names(in: TestFiles.directoryName(bookFile)).filter { $0 != "books.txt" }
    }

    /// Waits until the book directory has been quiet (no counted call) for `quiet` seconds, so
    /// the next case's counting starts with no deferred re-read of this one still pending.
    func settle(quiet: Double = 0.06) {
        shim.count()
        var offset = shim.logOffset
        let deadline = MonotonicClock.seconds() + 2
        repeat {
            MonotonicClock.sleep(seconds: quiet)
            let now = shim.logOffset
            if now == offset { break }
            offset = now
        } while MonotonicClock.seconds() < deadline
        shim.off()
    }
}
