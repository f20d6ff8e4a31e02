import BooksCore

/// Decides whether new file content looks like a transient state that must stand still for the
/// confirmation period before it is believed: a missing or empty file, or one that shrank
/// drastically (to less than half its size while holding at least four books).
///
/// Editors and tools pass through such states (`truncate` then write, `rm` then recreate, `git
/// checkout`); an ordinary delete of a row is not one of them and is reported at once.
public struct DestructiveChangeGuard: Sendable {
    public init() {}

    /// A reason when the new content looks destructive next to the old: `newCount` bytes that
    /// `containPipe` or not, after `oldBytes` bytes holding `oldBookCount` books.
    public func reason(oldBytes: Int, oldBookCount: Int, newCount: Int, containsPipe: () -> Bool) -> String? {
        guard oldBookCount > 0 else { return nil }
        if !containsPipe() { return "the file holds no book row" }
        if oldBookCount >= 4, newCount * 2 < oldBytes { return "the file shrank from \(oldBytes) to \(newCount) bytes" }
        return nil
    }

    /// A reason when `old` (holding `oldBookCount` books) changed by `splice` looks destructive.
    public func reason(old: [UInt8], oldBookCount: Int, splice: ByteSplice) -> String? {
        reason(
            oldBytes: old.count, oldBookCount: oldBookCount, newCount: splice.newCount(oldCount: old.count),
            containsPipe: { splice.result(of: old, contains: 0x7C) })
    }
}
