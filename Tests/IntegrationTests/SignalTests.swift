import BooksTestSupport
import Glibc
import Testing

/// Control signals are never lost: SIGHUP/SIGTERM are blocked in every thread from the start and
/// taken by one thread with `sigwait` (before, a signal during start-up killed booksd or was
/// dropped, and one delivered to a thread that did not block it was discarded).
@Suite("Signals", .serialized, .timeLimit(.minutes(2))) struct SignalTests {
    /// A file of `rows` rows, so that start-up (load, watch, socket) takes long enough for a signal
    /// to arrive during it.
    func startWithBigFile(_ name: String, rows: Int = 100_000) throws -> (TemporaryDirectory, DaemonProcess) {
        let dir = try TemporaryDirectory(prefix: "booksync-signals-\(name)")
        var text: [UInt8] = []
        text.reserveCapacity(rows * 40)
        for k in 0..<rows { text += Array("id-\(k)|Book \(k)|Author \(k % 97)\n".utf8) }
        try dir.write("books.txt", text)
        let options = DaemonOptions(
            file: dir.file("books.txt"), socket: dir.file("booksd.sock"),
            logPath: dir.file("booksd.log"))
        return (dir, try DaemonProcess(options, waitReady: false))
    }

    /// Bytes `pid` has read with read(2) so far (`rchar` in /proc), 0 when unknown.
    static func bytesRead(_ pid: pid_t) -> Int {
        let io = TestFiles.readText("/proc/\(pid)/io") ?? ""
        let line = io.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return line.flatMap { Int(String($0.dropFirst("rchar:".count).filter { $0 != " " && $0 != "\t" })) } ?? 0
    }

    @Test("a SIGHUP sent while booksd starts is handled once it is up, and does not kill it")
    func hangUpDuringStartUp() throws {
        // A million rows take well over a second to load in a debug build: once booksd has read
        // the file (36 MB in one read), it is running its own code and still loading. (A fixed
        // 300 ms after the spawn was too early for a ThreadSanitizer build on a loaded machine:
        // it had not reached main yet, where any process dies of SIGHUP.)
        let (dir, daemon) = try startWithBigFile("hup", rows: 1_000_000)
        defer { dir.remove() }
        #expect(eventuallyBlocking(timeout: 20, interval: 0.002) { Self.bytesRead(daemon.pid) > 1 << 20 })
        daemon.signal(SIGHUP)
        try daemon.waitUntilReady(timeout: 30)
        #expect(daemon.isRunning, "booksd died of the SIGHUP; log:\n\(daemon.logText)")
        #expect(
            eventuallyBlocking(timeout: 10) { daemon.logText.contains("configuration reloaded") },
            "the SIGHUP was lost; log:\n\(daemon.logText)")
        daemon.stop()
    }

    @Test("twenty SIGHUPs, each after the previous reload, are all handled")
    func everySignalIsHandled() throws {
        let (dir, daemon) = try startWithBigFile("many")
        defer { dir.remove() }
        try daemon.waitUntilReady(timeout: 30)
        for k in 1...20 {
            daemon.signal(SIGHUP)
            let handled = eventuallyBlocking(timeout: 10) {
                daemon.logText.components(separatedBy: "configuration reloaded").count - 1 >= k
            }
            #expect(handled, "SIGHUP \(k) was lost; log:\n\(daemon.logText)")
            if !handled { break }
        }
        daemon.signal(SIGTERM)
        #expect(eventuallyBlocking(timeout: 10) { !daemon.isRunning }, "SIGTERM was lost")
    }
}
