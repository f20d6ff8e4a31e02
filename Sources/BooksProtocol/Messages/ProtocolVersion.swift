/// The wire protocol's version, stated by both sides in the `hello` exchange.
public enum ProtocolVersion {
    /// The version this build speaks.
    public static let current = 1
}
