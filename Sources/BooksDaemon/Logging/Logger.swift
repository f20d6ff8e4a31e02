/// A cheap, copyable, thread-safe logger.
///
/// Copies share one backend and one `LogLevelThreshold`, so `setLevel(_:)` on any copy affects all.
/// Records below the threshold cost one atomic load; the message autoclosure is not evaluated.
///
/// A copy may carry metadata bound once (`logger[metadataKey: "BOOKS_STORE"] = name`, or
/// `bound(_:)`): its fields go with every record of that copy, as if passed on each call; a
/// field passed on a call wins over a bound one of the same key.
public struct Logger: Sendable {
    /// Where records go.
    public let backend: any LogBackend
    /// The shared minimum level.
    public let threshold: LogLevelThreshold
    /// The fields bound to this copy, sent with each of its records.
    public var metadata: [String: String] = [:]

    /// Creates a logger writing to `backend`, emitting records at `level` and above.
    public init(backend: any LogBackend, level: LogLevel = .info) {
        self.backend = backend
        self.threshold = LogLevelThreshold(level)
    }

    /// Creates a logger with the backend suited to this process (`LogDestination.detect()`):
    /// the journal under systemd, stderr otherwise.
    public static func automatic(level: LogLevel = .info, identifier: String = "booksd") -> Logger {
        switch LogDestination.detect() {
        case .journal: Logger(backend: JournalLogBackend(identifier: identifier), level: level)
        case .stderr: Logger(backend: StderrLogBackend(identifier: identifier), level: level)
        }
    }

    /// The current minimum level.
    public var level: LogLevel { threshold.level }

    /// The bound field `key` of this copy (nil: none); setting it binds it for this copy only.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A copy of this logger with `fields` bound besides the ones it already carries.
    public func bound(_ fields: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(fields) { _, new in new }
        return copy
    }

    /// Changes the minimum level for this logger and all its copies; safe from any thread.
    public func setLevel(_ level: LogLevel) { threshold.level = level }

    /// Emits `message` with structured `fields` if `level` passes the threshold.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        guard threshold.allows(level) else { return }
        let all = metadata.isEmpty ? fields : metadata.merging(fields) { _, call in call }
        backend.write(level: level, message: message(), fields: all)
    }

    /// Emits at `.debug`.
    public func debug(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        log(.debug, message(), fields)
    }
    /// Emits at `.info`.
    public func info(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        log(.info, message(), fields)
    }
    /// Emits at `.notice`.
    public func notice(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        log(.notice, message(), fields)
    }
    /// Emits at `.warning`.
    public func warning(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        log(.warning, message(), fields)
    }
    /// Emits at `.error`.
    public func error(_ message: @autoclosure () -> String, _ fields: [String: String] = [:]) {
        log(.error, message(), fields)
    }
}
