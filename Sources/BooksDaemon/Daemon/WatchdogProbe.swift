import Synchronization

/// One round of booksd's systemd watchdog: `WATCHDOG=1` is sent only when every part that keeps
/// the daemon useful has proven it still runs.
///
/// Order: the file watcher's thread must have gone round its loop recently (`isAlive`); then a
/// probe is posted to the socket server's epoll thread (`afterPendingCommands`); from there a
/// closure is queued on the engine's serial queue, which finally calls `ping`. A stuck
/// watcher, server loop or engine queue therefore stops the pings and systemd restarts the
/// service after `WatchdogSec=`. Safe from any thread; never blocks.
struct WatchdogProbe: Sendable {
    let watcher: (any FileWatcher)?
    let server: any ClientChannel
    /// The engine whose queue must run the probe (nil: a daemon serving no store yet).
    let engine: BookEngine?
    let logger: Logger
    let ping: @Sendable () -> Void
    private let reported = ReportedFlag()

    init(
        watcher: (any FileWatcher)?, server: any ClientChannel, engine: BookEngine?, logger: Logger,
        ping: @escaping @Sendable () -> Void
    ) {
        self.watcher = watcher
        self.server = server
        self.engine = engine
        self.logger = logger
        self.ping = ping
    }

    /// Starts one round; returns false when it was withheld at once (watcher not alive, or the
    /// server no longer accepts commands).
    @discardableResult
    func run() -> Bool {
        if let watcher, !watcher.isAlive {
            if !reported.value.exchange(true, ordering: .relaxed) {
                logger.error("the file watcher thread is not responding: withholding WATCHDOG=1")
            }
            return false
        }
        reported.value.store(false, ordering: .relaxed)
        let engine = self.engine
        let ping = self.ping
        return server.afterPendingCommands {
            if let engine { engine.onQueue { ping() } } else { ping() }
        }
    }
}

/// A flag shared with a dispatch handler (log a problem once, not on every tick).
final class ReportedFlag: Sendable {
    let value = Atomic<Bool>(false)
}
