/// One contiguous change between two versions of a byte sequence: the old bytes in `range` are
/// replaced by `replacement`. Any two versions differ by one splice (what lies between their
/// common prefix and their common suffix); `init(from:to:)` finds the smallest.
///
/// The daemon learns of file edits as splices: a reader that compares the file with the bytes it
/// already holds keeps only the changed part, so a one-row edit of a large file costs one pass
/// over it and no second copy.
public struct ByteSplice: Sendable, Hashable {
    /// The replaced range of the old bytes.
    public var range: Range<Int>
    /// The bytes that take its place.
    public var replacement: [UInt8]

    /// A splice replacing `range` with `replacement`.
    public init(range: Range<Int>, replacement: [UInt8]) {
        self.range = range
        self.replacement = replacement
    }

    /// The smallest splice turning `old` into `new` (empty when they are equal).
    public init(from old: [UInt8], to new: [UInt8]) {
        let (prefix, suffix) = ByteComparison.commonEnds(old, new)
        range = prefix..<(old.count - suffix)
        replacement = Array(new[prefix..<(new.count - suffix)])
    }

    /// Appending `bytes` to content of `count` bytes.
    public static func append(_ bytes: [UInt8], to count: Int) -> ByteSplice {
        ByteSplice(range: count..<count, replacement: bytes)
    }

    /// True when the splice changes nothing at all (nothing removed, nothing inserted).
    public var isEmpty: Bool { range.isEmpty && replacement.isEmpty }

    /// The size of the new version of content of `oldCount` bytes.
    public func newCount(oldCount: Int) -> Int { oldCount - range.count + replacement.count }

    /// The new version of `old` (a new array; `old` is untouched).
    public func applied(to old: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(newCount(oldCount: old.count))
        result.append(contentsOf: old[..<range.lowerBound])
        result.append(contentsOf: replacement)
        result.append(contentsOf: old[range.upperBound...])
        return result
    }

    /// Turns `bytes` into the new version in place (only the bytes after the range move).
    public func apply(to bytes: inout [UInt8]) {
        bytes.replaceSubrange(range, with: replacement)
    }

    /// Whether the new version of `old` contains `byte`, without building it.
    public func result(of old: [UInt8], contains byte: UInt8) -> Bool {
        replacement.contains(byte) || old[..<range.lowerBound].contains(byte) || old[range.upperBound...].contains(byte)
    }
}
