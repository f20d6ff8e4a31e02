import Glibc

/// Which backend suits the current process.
public enum LogDestination: Sendable, Equatable {
    /// stderr is connected to the journal: use `JournalLogBackend`.
    case journal
    /// Plain timestamped lines on stderr: use `StderrLogBackend`.
    case stderr

    /// Detects the destination: `.journal` when `JOURNAL_STREAM` (`"<dev>:<ino>"`) names the device
    /// and inode of stderr (systemd's documented test, see systemd.exec(5)); `.stderr` otherwise.
    ///
    /// `INVOCATION_ID` alone is not enough: a unit with `StandardError=file:…` (or a manager without
    /// journald, e.g. in a container) also has it, and `sd_journal_sendv` returns success when the
    /// journal socket does not exist, so records would silently vanish instead of reaching the file.
    ///
    /// - Parameters:
    ///   - environment: the variables to consult (defaults to the process environment).
    ///   - stderrIdentity: the `(dev, ino)` of stderr, or nil if it cannot be `fstat`ed.
    public static func detect(
        environment: [String: String] = ProcessEnvironment.current(),
        stderrIdentity: (dev: UInt64, ino: UInt64)? = LogDestination.stderrIdentity()
    ) -> LogDestination {
        guard let stream = environment["JOURNAL_STREAM"], let identity = stderrIdentity else { return .stderr }
        let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return .stderr }
        return dev == identity.dev && ino == identity.ino ? .journal : .stderr
    }

    /// The device and inode of file descriptor 2, or nil if `fstat` fails.
    public static func stderrIdentity() -> (dev: UInt64, ino: UInt64)? {
        var st = stat()
        guard fstat(STDERR_FILENO, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}
