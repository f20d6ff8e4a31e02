import BooksPlatform
import Glibc

/// Runs `subscribe --exec`'s command once per change set on a thread of its own, one run at a
/// time, in order (see `ExecQueue`); the feed never waits for it.
///
/// Each run gets the change set as JSON on stdin and as `BOOKS_*` variables (`ChangeSetPayload`).
/// A non-zero exit or a signal is logged on stderr and the feed goes on. A command that cannot be
/// started is logged and retried (`ExecQueue.retryDelaysMilliseconds`); when it still cannot be
/// started the runner stops and calls `onGiveUp` — that run never counts as run. It lives as long
/// as the process (its thread and wake-up pipe are never released). `onRun` is called after each
/// run with the number of change sets it covered and the last one's cursor.
final class ExecRunner: Sendable {
    private let argv: [String]
    private let coalesceMilliseconds: Int
    private let queue: Locked<ExecQueue>
    private let wake: (read: Int32, write: Int32)
    private let err: OutputWriter
    private let onRun: @Sendable (Int, Cursor) -> Void
    private let onGiveUp: @Sendable () -> Void

    init(
        argv: [String], coalesceMilliseconds: Int, err: OutputWriter,
        onRun: @escaping @Sendable (Int, Cursor) -> Void, onGiveUp: @escaping @Sendable () -> Void
    ) throws(SubscribeFailure) {
        self.argv = argv
        self.coalesceMilliseconds = coalesceMilliseconds
        self.queue = Locked(ExecQueue(coalesce: coalesceMilliseconds > 0))
        self.err = err
        self.onRun = onRun
        self.onGiveUp = onGiveUp
        var fds: [Int32] = [0, 0]
        guard Self.makePipe(&fds) else { throw SubscribeFailure(description: "cannot create a pipe for --exec") }
        wake = (fds[0], fds[1])
        let runner = self
        do {
            _ = try DedicatedThread.start(name: "booksctl-exec") { runner.loop() }
        } catch {
            throw SubscribeFailure(description: "cannot start the --exec thread: \(error)")
        }
    }

    /// Queues a change set (never blocks on the command).
    func enqueue(_ payload: ChangeSetPayload) {
        queue.withLock { $0.enqueue(payload) }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            guard let payload = queue.withLock({ $0.next() }) else {
                let n = read(wake.read, &buffer, buffer.count)
                if n < 0, errno != EINTR { return }
                if coalesceMilliseconds > 0 { usleep(UInt32(min(coalesceMilliseconds, 60_000)) * 1000) }
                continue
            }
            if let failure = run(payload) {
                switch queue.withLock({ $0.notStarted(payload) }) {
                case .after(let milliseconds):
                    report("\(failure); retrying in \(milliseconds) ms")
                    usleep(UInt32(milliseconds) * 1000)
                case .giveUp(let attempts):
                    report(
                        "\(failure); gave up after \(attempts) attempts, the cursor stays before seq \(payload.firstSeq)"
                    )
                    onGiveUp()
                    return
                }
                continue
            }
            queue.withLock { $0.ran() }
            onRun(payload.sets, payload.cursor)
        }
    }

    /// Starts the command, writes the JSON to its stdin, waits for it and logs a failing exit.
    /// Returns why the command could not be started, or nil when it ran.
    private func run(_ payload: ChangeSetPayload) -> String? {
        var fds: [Int32] = [0, 0]
        guard Self.makePipe(&fds) else { return "cannot create a pipe: \(String(cString: strerror(errno)))" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !text.hasPrefix("BOOKS_") || text.hasPrefix("BOOKS_SOCKET=") || text.hasPrefix("BOOKS_NATS") {
                environment.append(text)
            }
            index += 1
        }
        environment += payload.environment.map { "\($0.0)=\($0.1)" }
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup($0) } + [nil]
        defer { for pointer in cArgv + cEnv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, cArgv, cEnv)
        close(fds[0])
        guard rc == 0 else {
            close(fds[1])
            return
                "cannot run \(argv[0]) (change set up to seq \(payload.cursor.seq)): \(String(cString: strerror(rc)))"
        }
        OutputWriter(fd: fds[1]).writeIgnoringClosedPipe(payload.json)
        close(fds[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let signal = status & 0x7f
        if signal != 0 {
            report("\(argv[0]) killed by signal \(signal) (change set up to seq \(payload.cursor.seq))")
        } else if (status >> 8) & 0xff != 0 {
            report("\(argv[0]) exited with status \((status >> 8) & 0xff) (change set up to seq \(payload.cursor.seq))")
        }
        return nil
    }

    /// `pipe(2)` with both ends close-on-exec (the child gets its stdin by `dup2`).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private func report(_ message: String) { err.line("booksctl: --exec: \(TextCell.escape(message))") }
}
