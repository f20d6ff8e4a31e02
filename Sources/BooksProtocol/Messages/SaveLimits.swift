/// The limits of one `save` request (besides the line length limit, which bounds every request).
public enum SaveLimits {
    /// At most this many inserted, updated and deleted books together.
    public static let maxChanges = 10_000
    /// A temporary id is at most this many UTF-8 bytes.
    public static let maxTempIDBytes = 256
}
