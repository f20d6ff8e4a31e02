/// The wire protocol's version, stated by both sides in the `hello` exchange.
///
/// A client states the highest version it speaks; the daemon answers with the version the
/// connection uses: the client's, when it is one the daemon speaks (`supported`), or the
/// daemon's `current` when the client's is higher. A version below 1 is refused.
public enum ProtocolVersion {
    /// The highest version this build speaks.
    public static let current = 2
    /// The versions this build speaks.
    public static let supported: ClosedRange<Int> = 1...2
    /// The first version with named stores (`store`, `stores`, per-store events).
    public static let stores = 2

    /// The version a connection uses when its client states `requested`, or nil when the daemon
    /// cannot speak with it (below 1).
    public static func negotiate(_ requested: Int) -> Int? {
        guard requested >= supported.lowerBound else { return nil }
        return min(requested, current)
    }
}
