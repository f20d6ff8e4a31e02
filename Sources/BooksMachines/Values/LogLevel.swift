/// Severity of a log record, ordered from least (`debug`) to most severe (`error`).
///
/// The raw values are the spellings accepted in `booksd.conf` (`log_level`) and by `--log-level`.
public enum LogLevel: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case debug, info, notice, warning, error

    /// The syslog priority (`PRIORITY=` journal field): debug 7, info 6, notice 5, warning 4, error 3.
    public var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        }
    }

    /// Position in the ordering; `debug` is 0, `error` is 4.
    package var rank: UInt8 {
        switch self {
        case .debug: 0
        case .info: 1
        case .notice: 2
        case .warning: 3
        case .error: 4
        }
    }

    /// Inverse of `rank`; values above 4 map to `.error`.
    package init(rank: UInt8) {
        switch rank {
        case 0: self = .debug
        case 1: self = .info
        case 2: self = .notice
        case 3: self = .warning
        default: self = .error
        }
    }

    /// Orders by severity: `debug < info < notice < warning < error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// The lowercase name, as written in configuration and in stderr log lines.
    public var description: String { rawValue }
}
