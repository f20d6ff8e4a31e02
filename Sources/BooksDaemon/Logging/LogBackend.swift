/// A destination for log records that already passed level filtering.
///
/// Implementations must be safe to call from any thread and must never throw or block for long:
/// a failing destination drops the record rather than disturbing the daemon.
public protocol LogBackend: Sendable {
    /// Emits one record. `fields` are structured key/value pairs with uppercase keys (e.g. `BOOKS_FILE`).
    func write(level: LogLevel, message: String, fields: [String: String])
}
