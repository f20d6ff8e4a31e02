import BooksClient
import BooksCore
import BooksTestSupport
import Glibc

/// Support for the change-feed integration tests: a real `booksd` (the shared `DaemonProcess`)
/// on a book file in its own temporary directory, with the hand edits the tests make.
final class FeedDaemon: @unchecked Sendable {
    let scratch: TemporaryDirectory
    var directory: String { scratch.path }
    let file: String
    let socket: String
    let settings: [String]
    /// More `booksd` arguments (e.g. `--store NAME=PATH`, `--dir DIR`); changed between a stop
    /// and a `start` to restart the daemon otherwise (a replica promoted to owner).
    var arguments: [String]
    let logPath: String
    private(set) var daemon: DaemonProcess?

    /// Creates the directory and (if given) the initial file, and starts the daemon. `replica`:
    /// the file is served as a replica of the store `default` (`--replica default=FILE`).
    init(
        rows: [String] = [], settings: [String] = [], arguments: [String] = [], dirMode: mode_t = 0o700,
        replica: Bool = false
    ) async throws {
        scratch = try TemporaryDirectory(prefix: "feedtest", mode: dirMode)
        file = scratch.bookFile
        socket = scratch.socket
        logPath = scratch.log
        self.settings = settings
        self.arguments = arguments + (replica ? ["--replica", "default=\(scratch.bookFile)"] : [])
        if !rows.isEmpty { try TestFiles.write(rows.map { $0 + "\n" }.joined(), to: file) }
        try await start()
    }

    /// Starts `booksd` and waits until a client can connect and say hello.
    func start() async throws {
        var options = DaemonOptions(file: file, socket: socket, logPath: logPath)
        options.settings = settings
        options.logLevel = "debug"
        options.extraArguments = ["--confirmation-ms", "150"] + arguments
        options.environment = ChildEnvironment.current()
        daemon = try await DaemonProcess.start(options, readyTimeout: 15)
    }

    /// SIGTERM, then waits for the exit status (0 for a clean exit).
    @discardableResult
    func stop() -> Int32 {
        guard let daemon else { return -1 }
        self.daemon = nil
        return daemon.stop(grace: 60)
    }

    /// SIGKILL (a crash), then reaps the process.
    func crash() {
        daemon?.kill()
        daemon = nil
    }

    var log: String { TestFiles.readText(logPath) ?? "" }

    func connect(_ name: String = "feed-test") async throws -> BooksClient {
        try await BooksClient.connect(socketPath: socket, clientName: name)
    }

    /// A hand edit as editors save: the new content written beside the file, then renamed over it.
    func handWrite(_ content: String) throws {
        try TestFiles.replace(Array(content.utf8), at: file, temporaryName: ".hand-edit")
    }

    /// A hand edit in place (as `echo ... > books.txt` does: truncate, then write).
    func handWriteInPlace(_ content: String) throws { try TestFiles.write(content, to: file) }

    /// Appends a row by hand (as `echo ... >> books.txt` does).
    func handAppend(_ row: String) throws { try TestFiles.append(row + "\n", to: file) }

    func readFile() throws -> String {
        guard let text = TestFiles.readText(file) else { throw TestSupportError("cannot read \(file)") }
        return text
    }

    /// Rows of the file as (id, name, author), comments and blanks skipped.
    func fileBooks() throws -> [Book] {
        try readFile().split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !line.hasPrefix("#") else { return nil }
            return Book(id: parts[0], name: parts[1], author: parts[2])
        }
    }
}

/// Programs run to completion with stdout and stderr kept apart.
enum FeedProcess {
    /// Runs `prefix + [path] + args` (with a timeout) and returns (status, stdout, stderr).
    static func run(
        _ path: String, _ args: [String], prefix: [String] = [], timeout: Double = 20
    )
        async throws -> (status: Int32, out: String, err: String)
    {
        let scratch = try TemporaryDirectory(prefix: "feedrun")
        defer { scratch.remove() }
        let result = try await ChildProcess.run(
            prefix + [path] + args, stderr: .appendFile(scratch.file("err")),
            timeout: timeout, newProcessGroup: false)
        return (result.status, result.output, scratch.readText("err") ?? "")
    }
}
