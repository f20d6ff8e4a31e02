@testable import BooksDaemon
import FoundationEssentials
import Glibc
import Synchronization
import Testing

/// A fresh directory under /var/tmp (not /tmp: editors behave differently there), removed on deinit.
final class ScratchDirectory: Sendable {
    let path: String

    init(_ label: String = "watcher") throws {
        var template = Array("/var/tmp/booksync-\(label)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ScratchError.mkdtemp(errno) }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    enum ScratchError: Error { case mkdtemp(Int32), io(String, Int32) }
}

/// Writes `content` with open(O_TRUNC)/write/close, like an in-place editor.
func writeFile(_ path: String, _ content: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw ScratchDirectory.ScratchError.io("open \(path)", errno) }
    var bytes = Array(content.utf8)
    let written = write(fd, &bytes, bytes.count)
    let code = errno
    close(fd)
    guard written == bytes.count else { throw ScratchDirectory.ScratchError.io("write \(path)", code) }
}

/// Collects events delivered to a handler and waits for them.
final class EventRecorder: Sendable {
    private let events = Mutex<[FileWatchEvent]>([])
    private let times = Mutex<[UInt64]>([])

    var handler: @Sendable (FileWatchEvent) -> Void {
        { [self] event in
            let now = monotonicNanoseconds()
            events.withLock { $0.append(event) }
            times.withLock { $0.append(now) }
        }
    }

    var all: [FileWatchEvent] { events.withLock { $0 } }
    var deliveryTimes: [UInt64] { times.withLock { $0 } }

    func reset() {
        events.withLock { $0.removeAll() }
        times.withLock { $0.removeAll() }
    }

    /// Waits until `event` has been recorded (true) or `timeout` seconds passed (false).
    @discardableResult
    func wait(for event: FileWatchEvent, count: Int = 1, timeout: Double = 3) -> Bool {
        waitUntil(timeout: timeout) { $0.filter { $0 == event }.count >= count }
    }

    func waitUntil(timeout: Double = 3, _ condition: ([FileWatchEvent]) -> Bool) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        while monotonicNanoseconds() < deadline {
            if condition(all) { return true }
            usleep(2_000)
        }
        return condition(all)
    }
}

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Number of threads of this process whose name is `name` (from /proc/self/task/*/comm).
func threadCount(named name: String) -> Int {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
    return tasks.filter { task in
        guard let data = FileManager.default.contents(atPath: "/proc/self/task/\(task)/comm") else { return false }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) == name
    }.count
}

/// Whether no thread named `name` is left within `timeout` seconds. A joined thread can stay
/// listed in /proc for a moment: the kernel wakes `pthread_join` before it finishes reaping.
func threadsGone(named name: String, timeout: Double = 1) -> Bool {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    while threadCount(named: name) > 0 {
        if monotonicNanoseconds() > deadline { return false }
        usleep(1_000)
    }
    return true
}

/// Quiet time used to check that nothing (more) is delivered.
let settle: useconds_t = 300_000

/// Runs `arguments` (argv[0] an absolute path) with stdio on /dev/null; returns the exit status,
/// or nil when it could not be spawned or had to be killed after `timeout` seconds.
func runTool(_ arguments: [String], timeout: Double = 20) -> Int32? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return nil }
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
        if monotonicNanoseconds() > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return nil
        }
        usleep(5_000)
    }
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}

func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }


/// Blocks the first caller of `waitOnce()` until `open()`.
final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    func waitOnce() { while !opened.load(ordering: .acquiring) { usleep(1000) } }
    func open() { opened.store(true, ordering: .releasing) }
}

func readSmallFile(_ path: String) -> String? {
    let fd = Glibc.open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = read(fd, &buffer, buffer.count)
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
}

func writeSmallFile(_ path: String, _ content: String) -> Bool {
    let fd = Glibc.open(path, O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var bytes = Array(content.utf8)
    return write(fd, &bytes, bytes.count) == bytes.count
}
