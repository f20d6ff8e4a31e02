/// Decides whether new file content looks like a transient state that must stand still for the
/// confirmation period before it is believed: a missing or empty file, or one that shrank
/// drastically (to less than half its size while holding at least four books).
///
/// Editors and tools pass through such states (`truncate` then write, `rm` then recreate, `git
/// checkout`); an ordinary delete of a row is not one of them and is reported at once.
public struct DestructiveChangeGuard: Sendable {
    public init() {}

    /// A reason when `newBytes` looks destructive next to `oldBytes` holding `oldBookCount` books.
    public func reason(oldBytes: Int, oldBookCount: Int, newBytes: [UInt8]?) -> String? {
        guard oldBookCount > 0 else { return nil }
        guard let newBytes else { return "the file disappeared" }
        if !newBytes.contains(0x7C) { return "the file holds no book row" }
        if oldBookCount >= 4, newBytes.count * 2 < oldBytes { return "the file shrank from \(oldBytes) to \(newBytes.count) bytes" }
        return nil
    }
}
