/// The states of a recording, deduplicated.
public struct CrashStates: Sendable {
    /// The distinct states, in the order first met.
    public var states: [CrashState]
    /// Crash points considered (operations + 1).
    public var crashPoints: Int
    /// States generated before deduplication.
    public var generated: Int
    /// Whether some inode had more persistence cut points than `maximumCuts` (then only the
    /// first and last ones were used).
    public var bounded: Bool
}
