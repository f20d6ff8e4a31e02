import BooksTestSupport
import Glibc

// Helpers for the systemd integration tests, on the shared test support: a test-owned
// NOTIFY_SOCKET (NotifySocket.swift), booksd started through the shared `DaemonProcess`, tools
// as shared `ChildProcess`es and the shared raw `LineClient` for the wire protocol.

enum SystemdTools {
    /// The environment of the tests' children: this process's, minus systemd's variables and
    /// BOOKS_SOCKET, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ChildEnvironment.current(removing: ChildEnvironment.systemdVariables + ["BOOKS_SOCKET"])
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Starts `argv` with `environment(extra)`; stdout and stderr go to `output` (appended)
    /// when given, else to /dev/null.
    static func spawn(
        _ argv: [String], environment extra: [String: String] = [:], output: String? = nil
    ) throws -> ChildProcess {
        try ChildProcess.spawn(
            argv, environment: environment(extra), stdout: output.map { .appendFile($0) } ?? .devNull,
            stderr: .sameAsStdout, newProcessGroup: false)
    }

    /// The text of `path`, "" when unreadable.
    static func read(_ path: String) -> String { TestFiles.readText(path) ?? "" }
}

extension LineClient {
    /// hello + subscribe; true once the subscribe reply arrived.
    func subscribe() -> Bool {
        guard hello(client: "systemd-tests") != nil else { return false }
        send(#"{"id":"s","op":"subscribe"}"#)
        return readLine(timeout: 5, containing: #""id":"s""#) != nil
    }
}

/// One booksd under test: its own directory, book file, socket, configuration and NOTIFY_SOCKET.
final class BooksdFixture {
    let scratch: TemporaryDirectory
    var directory: String { scratch.path }
    let booksFile: String
    let socketPath: String
    let configPath: String
    let logPath: String
    let notify: NotifySocket
    private(set) var daemon: DaemonProcess?
    private(set) var startedAt = 0.0

    init(
        books: [String] = ["b1|Dune|Frank Herbert", "b2|Emma|Jane Austen", "b3|Ulysses|James Joyce"],
        extraConfig: String = ""
    ) throws {
        // Short: socket paths must stay under 108 bytes.
        scratch = try TemporaryDirectory(prefix: "bsd", base: "/tmp")
        booksFile = scratch.bookFile
        socketPath = scratch.socket
        configPath = scratch.file("booksd.conf")
        logPath = scratch.log
        notify = NotifySocket(path: scratch.file("notify.sock"))
        try TestFiles.write(books.map { $0 + "\n" }.joined(), to: booksFile)
        try writeConfig(extraConfig)
    }

    deinit {
        daemon = nil
    }

    /// The daemon's process, once started.
    var process: ChildProcess? { daemon?.process }

    func writeConfig(_ extra: String) throws {
        try TestFiles.write(
            "file = \(booksFile)\nsocket = \(socketPath)\nconfirmation_ms = 200\n\(extra)", to: configPath)
    }

    /// Starts booksd with `NOTIFY_SOCKET` pointing at the test's socket (plus `environment`).
    /// With `watchdogUSec`, also sets `WATCHDOG_USEC` and `WATCHDOG_PID` (through a shell `exec`,
    /// so the pid is booksd's own). Readiness is what the tests check: this does not wait.
    func start(environment: [String: String] = [:], watchdogUSec: Int? = nil, watchdogPID: String? = nil) throws {
        var env = environment
        env["NOTIFY_SOCKET"] = notify.path
        var options = DaemonOptions(logPath: logPath)
        options.configFile = configPath
        if let watchdogUSec {
            env["WATCHDOG_USEC"] = String(watchdogUSec)
            options.wrapper = ["/bin/sh", "-c", "WATCHDOG_PID=\(watchdogPID ?? "$$") exec \"$0\" \"$@\""]
        }
        options.environment = SystemdTools.environment(env)
        startedAt = MonotonicClock.seconds()
        daemon = try DaemonProcess(options, waitReady: false)
    }

    var log: String { SystemdTools.read(logPath) }

    /// Waits for `READY=1`; returns seconds since start, or nil.
    func waitReady(within seconds: Double = 10) -> Double? {
        guard let ready = notify.next(within: seconds, containing: "READY=1") else { return nil }
        return ready.time - startedAt
    }

    func booksctl(_ arguments: [String], output: String) -> Int32? {
        guard
            let child = try? SystemdTools.spawn(
                [BuildProducts.booksctl, "--socket", socketPath] + arguments, output: output),
            child.waitBlocking(timeout: 10) != nil
        else { return nil }
        return child.exitCode
    }
}
