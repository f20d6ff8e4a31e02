import CSystemd
import Glibc

/// Thin wrapper over `sd_notify(3)` for a `Type=notify` service.
///
/// Every method sends one datagram to `$NOTIFY_SOCKET` and returns `true` when it was sent, `false`
/// when `NOTIFY_SOCKET` is unset (not running under systemd: a no-op). The environment is never
/// modified. Safe to call from any thread.
public struct SystemdNotifier: Sendable {
    /// Creates a notifier; it reads `NOTIFY_SOCKET` on each call.
    public init() {}

    /// Whether `NOTIFY_SOCKET` is currently set (i.e. notifications will be sent).
    public var isEnabled: Bool {
        guard let value = getenv("NOTIFY_SOCKET") else { return false }
        return value.pointee != 0
    }

    /// Sends `READY=1` (startup or reload finished), with `STATUS=` when `status` is given.
    @discardableResult
    public func ready(status: String? = nil) throws(SystemdError) -> Bool {
        try send(Self.message(["READY=1"], status: status))
    }

    /// Sends `STATUS=<text>` (shown by `systemctl status`). Newlines are replaced by spaces.
    @discardableResult
    public func status(_ text: String) throws(SystemdError) -> Bool {
        try send(Self.message([], status: text))
    }

    /// Sends `WATCHDOG=1`; call at least every `watchdogInterval()`.
    @discardableResult
    public func watchdog() throws(SystemdError) -> Bool {
        try send("WATCHDOG=1")
    }

    /// Sends `RELOADING=1` with `MONOTONIC_USEC=<CLOCK_MONOTONIC µs>` (required by systemd 253+ for
    /// `Type=notify-reload`, ignored by 252). Send `ready()` when the reload is complete.
    @discardableResult
    public func reloading(status: String? = nil) throws(SystemdError) -> Bool {
        try send(Self.message(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"], status: status))
    }

    /// Sends `STOPPING=1` at the start of an orderly shutdown.
    @discardableResult
    public func stopping(status: String? = nil) throws(SystemdError) -> Bool {
        try send(Self.message(["STOPPING=1"], status: status))
    }

    /// Sends `state` (newline-separated `KEY=VALUE` assignments) verbatim.
    @discardableResult
    public func send(_ state: String) throws(SystemdError) -> Bool {
        let result = sd_notify(0, state)
        if result < 0 { throw .notifyFailed(errno: -result) }
        return result > 0
    }

    /// The interval at which to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, or nil when the watchdog
    /// is not enabled for this process (unset, or `WATCHDOG_PID` names another process).
    public static func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec / 2))
    }

    /// The current `CLOCK_MONOTONIC` time in microseconds.
    public static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
    }

    static func message(_ assignments: [String], status: String?) -> String {
        var lines = assignments
        if let status {
            lines.append("STATUS=" + String(status.map { $0.isNewline ? " " : $0 }))
        }
        return lines.joined(separator: "\n")
    }
}
