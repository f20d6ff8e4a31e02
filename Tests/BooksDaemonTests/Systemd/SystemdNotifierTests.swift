import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// A datagram socket bound in a fresh temporary directory, standing in for systemd's notify socket.
private final class NotifySocketFixture {
    let fd: Int32
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "booksd-notify")
        path = directory.file("notify.sock")
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let rc = try UnixSocketAddress(path: path).withSockaddr { bind(fd, $0, $1) }
        guard fd >= 0, rc == 0 else { throw SystemdError.notifyFailed(errno: errno) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, or nil after a 2 s timeout.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }

    deinit { close(fd) }  // the directory (and the socket in it) goes with `directory`
}

/// Tests that mutate NOTIFY_SOCKET / WATCHDOG_* / LISTEN_* in the process environment: serialized.
@Suite(.serialized) struct SystemdEnvironmentTests {
    @Test func notifierIsNoOpWithoutNotifySocket() throws {
        unsetenv("NOTIFY_SOCKET")
        let notifier = SystemdNotifier()
        #expect(!notifier.isEnabled)
        #expect(try notifier.ready(status: "x") == false)
        #expect(try notifier.watchdog() == false)
    }

    @Test func notifyDatagrams() throws {
        let fixture = try NotifySocketFixture()
        setenv("NOTIFY_SOCKET", fixture.path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        let notifier = SystemdNotifier()
        #expect(notifier.isEnabled)

        #expect(try notifier.ready(status: "Watching books.txt\n(3 books)"))
        #expect(fixture.receive() == "READY=1\nSTATUS=Watching books.txt (3 books)")

        #expect(try notifier.status("Reloading"))
        #expect(fixture.receive() == "STATUS=Reloading")

        #expect(try notifier.watchdog())
        #expect(fixture.receive() == "WATCHDOG=1")

        let before = SystemdNotifier.monotonicMicroseconds()
        #expect(try notifier.reloading())
        let reloading = try #require(fixture.receive())
        let lines = reloading.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "RELOADING=1" && lines[1].hasPrefix("MONOTONIC_USEC="))
        let usec = UInt64(lines[1].dropFirst("MONOTONIC_USEC=".count)) ?? 0
        #expect(usec >= before && usec <= SystemdNotifier.monotonicMicroseconds())

        #expect(try notifier.stopping(status: "Shutting down"))
        #expect(fixture.receive() == "STOPPING=1\nSTATUS=Shutting down")
    }

    @Test func notifyToMissingSocketThrows() {
        setenv("NOTIFY_SOCKET", "/nonexistent-dir-booksd/notify.sock", 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        #expect(throws: SystemdError.self) { try SystemdNotifier().ready() }
    }

    @Test func watchdogInterval() {
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
        #expect(SystemdNotifier.watchdogInterval() == nil)
        setenv("WATCHDOG_USEC", "10000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        defer {
            unsetenv("WATCHDOG_USEC")
            unsetenv("WATCHDOG_PID")
        }
        #expect(SystemdNotifier.watchdogInterval() == .seconds(5))
        setenv("WATCHDOG_PID", String(getpid() + 1), 1)
        #expect(SystemdNotifier.watchdogInterval() == nil)
    }

    @Test func noSocketActivation() throws {
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_PID")
        #expect(try SocketActivation.listeningSockets() == [])
        // LISTEN_PID naming another process: not for us, and nothing is touched.
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_PID", String(getpid() + 1), 1)
        defer {
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_PID")
        }
        #expect(try SocketActivation.listeningSockets() == [])
    }
}
