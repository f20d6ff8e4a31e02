import BooksCore
import BooksTestSupport
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import BooksStore

/// The lease on a replaced version of the book file: it sees writers that have the file open,
/// and writers that open it while the lease is held (they wait until it is released).
@Suite struct ReplacedVersionGuardTests {
    /// Whether this machine's /var/tmp grants this process file leases (owner or CAP_LEASE, and a
    /// file system with leases): the tests that need one are skipped, not failed, without.
    static let leasesAvailable: Bool = {
        let path = "/var/tmp/booksstore-lease-probe-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return false }
        close(fd)
        defer { unlink(path) }
        return ReplacedVersionGuard(path: path).state == .guarded
    }()

    /// A fresh directory holding `books.txt` with `text` (remove it when done).
    func scratchFile(_ text: String) throws -> (directory: TemporaryDirectory, path: String) {
        let directory = try TemporaryDirectory(prefix: "booksstore-lease")
        return (directory, try directory.write("books.txt", text))
    }

    /// Waits (at most 5 s) until a writer's open has broken the guard's lease.
    func waitForWriter(_ guardian: ReplacedVersionGuard) -> Bool {
        eventuallyBlocking(timeout: 5, interval: 0.001) { guardian.writerArrived }
    }

    @Test(.enabled(if: leasesAvailable, "file leases are not available here"))
    func aFileOpenForWritingIsReported() throws {
        let (scratch, path) = try scratchFile("a|1|x\n")
        defer { scratch.remove() }
        let writer = open(path, O_WRONLY)
        defer { close(writer) }
        let guardian = ReplacedVersionGuard(path: path)
        #expect(guardian.state == .writerOpen)
        #expect(!guardian.writerArrived)
    }

    /// A writer that opens the file while the lease is held waits; the guard notices it, lets it
    /// go on, waits until it closed the file and returns what it wrote.
    @Test(.enabled(if: leasesAvailable, "file leases are not available here"))
    func aWriterArrivingLaterIsWaitedForAndItsContentReturned() throws {
        let (scratch, path) = try scratchFile("a|1|x\n")
        defer { scratch.remove() }
        let checked = try #require(FileIdentity.of(path: path))
        let guardian = ReplacedVersionGuard(path: path)
        try #require(guardian.state == .guarded, "leases unavailable here")
        #expect(!guardian.writerArrived)
        let done = DoneFlag()
        let writer = DispatchGroup()
        // An editor: open with O_TRUNC (waits for the lease), write, close.
        DispatchQueue.global().async(group: writer) {
            let fd = open(path, O_WRONLY | O_TRUNC)
            _ = "a|2|late\n".withCString { write(fd, $0, strlen($0)) }
            close(fd)
            done.value.store(true, ordering: .releasing)
        }
        #expect(waitForWriter(guardian), "the writer's open did not break the lease")
        let finishedEarly = done.value.load(ordering: .acquiring)
        #expect(!finishedEarly, "the writer did not wait for the lease")
        let late = guardian.contentAfterWriters(checked: checked)
        #expect(late.map { String(decoding: $0, as: UTF8.self) } == "a|2|late\n")
        writer.wait()
    }

    /// Nothing written by a writer that only opened the file: no late content.
    @Test(.enabled(if: leasesAvailable, "file leases are not available here"))
    func aWriterThatWritesNothingLeavesNoLateContent() throws {
        let (scratch, path) = try scratchFile("a|1|x\n")
        defer { scratch.remove() }
        let checked = try #require(FileIdentity.of(path: path))
        let guardian = ReplacedVersionGuard(path: path)
        try #require(guardian.state == .guarded, "leases unavailable here")
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) { close(open(path, O_WRONLY)) }
        #expect(waitForWriter(guardian), "the writer's open did not break the lease")
        #expect(guardian.contentAfterWriters(checked: checked, timeoutMilliseconds: 300) == nil)
        writer.wait()
    }
}

private final class DoneFlag: Sendable {
    let value = Atomic<Bool>(false)
}
