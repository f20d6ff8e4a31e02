import BooksTestSupport
import Glibc
import Testing

/// The real `booksd` binary against a test-owned `NOTIFY_SOCKET`: readiness, status, watchdog,
/// reload and stop as systemd sees them.
@Suite("booksd under a test-owned NOTIFY_SOCKET", .serialized)
struct SystemdNotifyTests {
    @Test("READY=1 only once the file is loaded and the socket accepts")
    func readyMeansServing() throws {
        let d = try BooksdFixture()
        try d.start()
        let elapsed = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        // At READY the socket must already accept and answer.
        let client = try #require(try? LineClient(path: d.socketPath), "socket does not accept at READY=1")
        #expect(client.hello(client: "systemd-tests") != nil)
        client.send(#"{"id":"l","op":"list"}"#)
        let list = client.readLine(timeout: 5, containing: #""id":"l""#)
        #expect(list?.contains("Ulysses") == true, "the file is not loaded at READY=1: \(list ?? "nil")")
        // The READY datagram (or the one right after it) carries the summary.
        #expect(
            eventuallyBlocking(timeout: 10) { d.notify.lastStatus?.hasPrefix("3 books, 0 bad lines, ") == true },
            "STATUS: \(d.notify.lastStatus ?? "nil")")
        // Nothing claimed readiness before the first datagram that says READY=1.
        print("booksd: time to READY=1: \(Int(elapsed * 1000)) ms")
        #expect(elapsed < 10)
    }

    @Test("STATUS= is a one-line summary kept current (books, bad lines, subscribers, last change)")
    func statusKeptCurrent() throws {
        let d = try BooksdFixture()
        try d.start()
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        #expect(
            eventuallyBlocking(timeout: 10) {
                d.notify.lastStatus?.hasPrefix("3 books, 0 bad lines, 0 subscribers, no change yet") == true
            },
            "STATUS: \(d.notify.lastStatus ?? "nil")")

        try TestFiles.append("b4|Beloved|Toni Morrison\nthis line is bad\n", to: d.booksFile)
        #expect(
            eventuallyBlocking(timeout: 5) {
                let s = d.notify.lastStatus ?? ""
                return s.hasPrefix("4 books, 1 bad lines, ") && s.contains("last change seq 1 at ")
            }, "STATUS after an edit: \(d.notify.lastStatus ?? "nil")")

        let subscriber = try #require(try? LineClient(path: d.socketPath))
        #expect(subscriber.subscribe())
        #expect(
            eventuallyBlocking(timeout: 5) { d.notify.lastStatus?.contains(" 1 subscribers") == true },
            "STATUS with a subscriber: \(d.notify.lastStatus ?? "nil")")
        for text in d.notify.texts {
            for line in text.split(separator: "\n") where line.hasPrefix("STATUS=") {
                #expect(!line.contains("\n"))
            }
        }
    }

    @Test(
        "WATCHDOG=1 at half of WATCHDOG_USEC when WATCHDOG_PID is booksd; none for another pid",
        arguments: [false, true])
    func watchdogPings(forcePolling: Bool) throws {
        let d = try BooksdFixture(extraConfig: forcePolling ? "force_polling = yes\npoll_interval_ms = 200\n" : "")
        try d.start(watchdogUSec: 1_000_000)
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        let first = try #require(d.notify.next(within: 3, containing: "WATCHDOG=1"), "no WATCHDOG=1")
        var times = [first.time]
        while times.count < 5, let ping = d.notify.next(within: 3, containing: "WATCHDOG=1") { times.append(ping.time) }
        #expect(times.count == 5, "watchdog pings: \(times.count)")
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        let mean = gaps.reduce(0, +) / Double(max(gaps.count, 1))
        print(
            """
            booksd (\(forcePolling ? "polling" : "inotify")): WATCHDOG_USEC=1s, mean ping interval \
            \(Int(mean * 1000)) ms
            """
        )
        #expect(mean > 0.35 && mean < 0.7, "gaps \(gaps)")

        let other = try BooksdFixture()
        try other.start(watchdogUSec: 1_000_000, watchdogPID: "1")
        _ = try #require(other.waitReady(), "no READY=1; log:\n\(other.log)")
        #expect(other.notify.next(within: 1.5, containing: "WATCHDOG=1") == nil, "pinged for another WATCHDOG_PID")
    }

    @Test("a frozen booksd (SIGSTOP) sends no WATCHDOG=1; pings resume on SIGCONT (stuck queues: WatchdogProbeTests)")
    func watchdogTiedToLiveness() throws {
        let d = try BooksdFixture()
        try d.start(watchdogUSec: 400_000)
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        _ = try #require(d.notify.next(within: 3, containing: "WATCHDOG=1"))
        let process = try #require(d.process)
        process.signal(SIGSTOP)
        d.notify.pump(milliseconds: 50)
        _ = d.notify.next(within: 0.05) { _ in false }  // consume what was already queued
        #expect(d.notify.next(within: 1, containing: "WATCHDOG=1") == nil)
        process.signal(SIGCONT)
        #expect(d.notify.next(within: 2, containing: "WATCHDOG=1") != nil)
    }

    @Test("SIGHUP: RELOADING=1 then READY=1, the subscriber stays connected and keeps receiving")
    func reloadKeepsSubscribers() throws {
        let d = try BooksdFixture()
        try d.start()
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        let subscriber = try #require(try? LineClient(path: d.socketPath))
        #expect(subscriber.subscribe())

        try d.writeConfig("log_level = debug\nheartbeat_seconds = 60\n")
        d.process?.signal(SIGHUP)
        let reloading = d.notify.next(within: 5, containing: "RELOADING=1")
        #expect(reloading != nil, "no RELOADING=1")
        #expect(reloading?.text.contains("MONOTONIC_USEC=") == true)
        #expect(d.notify.next(within: 5, containing: "READY=1") != nil, "no READY=1 after the reload")
        #expect(eventuallyBlocking(timeout: 3) { d.log.contains("configuration reloaded") }, "log:\n\(d.log)")

        try TestFiles.append("b9|Middlemarch|George Eliot\n", to: d.booksFile)
        let change = subscriber.readLine(timeout: 5, containing: "Middlemarch")
        #expect(change?.contains(#""event":"change""#) == true, "subscriber after reload got: \(change ?? "nil")")
        #expect(!subscriber.isAtEnd)
    }

    @Test("SIGHUP with a bad configuration: refused with a log line, the old one stays, still READY")
    func badReloadRefused() throws {
        let d = try BooksdFixture(extraConfig: "heartbeat_seconds = 1\n")
        try d.start()
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        let subscriber = try #require(try? LineClient(path: d.socketPath))
        #expect(subscriber.subscribe())

        try d.writeConfig("heartbeat_seconds = lots\n")
        d.process?.signal(SIGHUP)
        #expect(d.notify.next(within: 5, containing: "RELOADING=1") != nil)
        #expect(d.notify.next(within: 5, containing: "READY=1") != nil, "no READY=1 after a refused reload")
        #expect(
            eventuallyBlocking(timeout: 3) {
                d.log.contains("the new configuration is refused, the old one stays in force")
            },
            "log:\n\(d.log)")
        #expect(d.log.contains("heartbeat_seconds"), "the refusal does not name the key:\n\(d.log)")
        // The old configuration stays: heartbeats still every second, the daemon still serves.
        _ = subscriber.readLine(timeout: 3, containing: #""event":"heartbeat""#)
        #expect(subscriber.readLine(timeout: 3, containing: #""event":"heartbeat""#) != nil)
        try TestFiles.append("b9|Middlemarch|George Eliot\n", to: d.booksFile)
        #expect(subscriber.readLine(timeout: 5, containing: "Middlemarch") != nil)
        #expect(d.process?.isRunning == true, "booksd exited after a bad reload")
    }

    @Test(
        "SIGTERM: STOPPING=1, the in-flight write finishes, subscribers get shutdown, exit 0 within 5 s",
        arguments: [SIGTERM, SIGINT])
    func stopsCleanly(signal number: Int32) throws {
        let d = try BooksdFixture()
        try d.start()
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        let subscriber = try #require(try? LineClient(path: d.socketPath))
        #expect(subscriber.subscribe())
        let writer = try #require(try? LineClient(path: d.socketPath))
        #expect(writer.hello(client: "systemd-tests") != nil)

        writer.send(#"{"id":"w","op":"insert","books":[{"name":"Last Word","author":"In Flight"}]}"#)
        let sent = MonotonicClock.seconds()
        d.process?.signal(number)
        #expect(d.notify.next(within: 5, containing: "STOPPING=1") != nil, "no STOPPING=1")
        let process = try #require(d.process)
        #expect(process.waitBlocking(timeout: 5) != nil, "booksd still running 5 s after the signal")
        let exitTime = MonotonicClock.seconds() - sent
        print("booksd: exit \(number == SIGTERM ? "SIGTERM" : "SIGINT") -> \(Int(exitTime * 1000)) ms")
        #expect(
            process.exitCode == 0,
            "exit status \(String(describing: process.exitCode)), signal \(String(describing: process.exitSignal))")

        let reply = writer.readLine(timeout: 2, containing: #""id":"w""#)
        #expect(reply?.contains(#""ok":true"#) == true, "write reply: \(reply ?? "nil")")
        #expect(
            SystemdTools.read(d.booksFile).contains("Last Word|In Flight"), "the in-flight write is not in the file")
        let notice = subscriber.readLine(timeout: 2, containing: #""event":"shutdown""#)
        #expect(notice != nil, "the subscriber got no shutdown event")
        #expect(!TestFiles.isSocket(d.socketPath), "booksd left its own socket behind")
    }

    @Test(
        "plain timestamped stderr logging when stderr is not the journal (also as a unit with StandardError=file:)",
        arguments: [false, true])
    func stderrLogging(asUnitWithFileOutput: Bool) throws {
        let d = try BooksdFixture()
        try d.start(environment: asUnitWithFileOutput ? ["INVOCATION_ID": "0123456789abcdef0123456789abcdef"] : [:])
        _ = try #require(d.waitReady(), "no READY=1; log:\n\(d.log)")
        let line = try #require(d.log.split(separator: "\n").first { $0.contains("booksd ready") }, "log:\n\(d.log)")
        // e.g. "2026-11-30T08:44:39.123Z booksd[123] notice: booksd ready: …"
        #expect(line.first?.isNumber == true && line.dropFirst(10).first == "T", "\(line)")
        #expect(line.contains(" booksd[\(d.process?.pid ?? 0)] notice: booksd ready"), "\(line)")
    }
}

/// Socket activation exactly as systemd does it, through `systemd-socket-activate`.
@Suite("booksd socket-activated by systemd-socket-activate", .serialized)
struct SocketActivationTests {
    @Test("activated on the first connection, booksctl works, the activator's socket survives booksd")
    func socketActivation() throws {
        let activator = "/usr/bin/systemd-socket-activate"
        guard access(activator, X_OK) == 0 else {
            print("SKIP socketActivation: \(activator) not installed (Debian package systemd)")
            return
        }
        let d = try BooksdFixture()
        let listenPath = d.directory + "/activated.sock"
        let process = try SystemdTools.spawn(
            [
                activator, "-l", listenPath, "--fdname=booksd", "-E", "NOTIFY_SOCKET=\(d.notify.path)",
                BuildProducts.booksd, "--config", d.configPath,
            ], output: d.logPath)
        #expect(
            eventuallyBlocking(timeout: 5) { TestFiles.isSocket(listenPath) },
            "the activator did not listen; log:\n\(d.log)")
        #expect(d.notify.next(within: 0.3, containing: "READY=1") == nil, "booksd started before any connection")

        // The first connection triggers the start; it is then served by booksd.
        let first = try #require(try? LineClient(path: listenPath))
        #expect(first.hello(client: "systemd-tests") != nil, "the triggering connection was not served; log:\n\(d.log)")
        #expect(d.notify.next(within: 10, containing: "READY=1") != nil, "no READY=1; log:\n\(d.log)")
        #expect(eventuallyBlocking(timeout: 3) { d.log.contains("inherited from systemd") }, "log:\n\(d.log)")
        #expect(!TestFiles.isSocket(d.socketPath), "booksd bound its configured socket despite activation")

        let out = d.directory + "/list.out"
        let child = try SystemdTools.spawn([BuildProducts.booksctl, "--socket", listenPath, "list"], output: out)
        #expect(
            child.waitBlocking(timeout: 10) != nil && child.exitCode == 0, "booksctl list: \(SystemdTools.read(out))")
        #expect(SystemdTools.read(out).contains("Dune"))

        process.signal(SIGTERM)
        #expect(process.waitBlocking(timeout: 5) != nil && process.exitCode == 0)
        #expect(TestFiles.isSocket(listenPath), "booksd deleted the socket the activator owns")
    }
}
