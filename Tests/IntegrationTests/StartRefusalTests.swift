import BooksTestSupport
import Glibc
import Testing

/// What booksd refuses before it serves: a second daemon on a file another one serves, and paths
/// that cannot work — said by `--check-config` too, and a failed start leaves no socket behind.
@Suite("Start refusals", .timeLimit(.minutes(2))) struct StartRefusalTests {
    @Test("a second booksd on the same file (another socket) exits non-zero naming the first one's pid")
    func secondDaemonOnTheSameFile() async throws {
        let h = try await DaemonHarness("second-daemon", confirmationMs: 200)
        defer { h.shutdown() }
        let pid = try #require(h.daemon?.pid)
        let before = h.fileText
        let other = h.root + "/other.sock"
        let second = try await ChildProcess.run(
            [BuildProducts.booksd, "--file", h.file, "--socket", other], environment: h.tools.environment, timeout: 20)
        #expect(second.status == 1, "\(second)")
        #expect(second.output.contains("another booksd (pid \(pid)) already serves \(h.file)"), "\(second)")
        #expect(access(other, F_OK) != 0, "the refused daemon left its socket")
        // The first one still serves, and the file is as it was.
        #expect(h.fileText == before)
        let sub = try await h.subscribe()
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
    }

    @Test("--check-config fails on a book file whose directory does not exist; so does a start, removing its socket")
    func missingBookDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "booksync-tests-missing-dir", base: "/var/tmp")
        defer { directory.remove() }
        let file = directory.path + "/nowhere/books.txt"
        let socket = directory.path + "/booksd.sock"
        let arguments = [BuildProducts.booksd, "--file", file, "--socket", socket]
        let check = try await ChildProcess.run(arguments + ["--check-config"], timeout: 20)
        #expect(check.status == 2, "\(check)")
        #expect(
            check.output.contains(
                "the directory of the book file \(file) (store 'default') does not exist: \(directory.path)/nowhere"),
            "\(check)")
        let start = try await ChildProcess.run(arguments, timeout: 20)
        #expect(start.status == 1, "\(start)")
        #expect(access(socket, F_OK) != 0, "the failed start left its socket behind")
        // With the directory there, the same configuration checks OK.
        _ = directory.makeDirectory("nowhere")
        let fixed = try await ChildProcess.run(arguments + ["--check-config"], timeout: 20)
        #expect(fixed.status == 0 && fixed.output.hasPrefix("configuration OK"), "\(fixed)")
    }

    @Test("a start that fails late (HTTP refused once the socket is bound and the stores loaded) exits 1, socket gone")
    func lateFailureStopsWhatStarted() async throws {
        let scratch = try TemporaryDirectory(prefix: "late-failure")
        defer { scratch.remove() }
        try TestFiles.write("b1|Emma|Jane Austen\n", to: scratch.bookFile)
        let arguments = [BuildProducts.booksd, "--file", scratch.bookFile, "--socket", scratch.socket]
        let run = try await ChildProcess.run(
            arguments + ["--set", "http_listen=0.0.0.0:\(NATSServerProcess.freePort())"], stderr: .sameAsStdout,
            timeout: 30)
        #expect(run.status == 1, "\(run)")
        #expect(run.output.contains("booksd cannot start: "), "\(run)")
        #expect(!run.output.contains("booksd ready"), "\(run)")
        #expect(access(scratch.socket, F_OK) != 0, "the failed start left its socket behind")
        #expect(TestFiles.readText(scratch.bookFile) == "b1|Emma|Jane Austen\n")
        // What it started is stopped and released: the same files serve at once.
        let daemon = try await DaemonProcess.start(DaemonOptions(file: scratch.bookFile, socket: scratch.socket))
        #expect(daemon.stop() == 0)
        #expect(access(scratch.socket, F_OK) != 0, "booksd left its socket behind at the stop")
    }
}
