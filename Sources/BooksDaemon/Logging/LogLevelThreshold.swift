import Synchronization

/// The minimum level a `Logger` emits, shared by all copies of that logger and changeable at any
/// time from any thread (for example on `SIGHUP` reload).
///
/// Thread safety: the only state is an `Atomic`, so the class is `Sendable` without `@unchecked`.
public final class LogLevelThreshold: Sendable {
    private let rank: Atomic<UInt8>

    /// Creates a threshold that lets records at `level` or above through.
    public init(_ level: LogLevel) { rank = Atomic(level.rank) }

    /// The current minimum level; setting it takes effect for every subsequent record.
    public var level: LogLevel {
        get { LogLevel(rank: rank.load(ordering: .relaxed)) }
        set { rank.store(newValue.rank, ordering: .relaxed) }
    }

    /// Whether a record at `level` would be emitted now.
    public func allows(_ level: LogLevel) -> Bool { level.rank >= rank.load(ordering: .relaxed) }
}
