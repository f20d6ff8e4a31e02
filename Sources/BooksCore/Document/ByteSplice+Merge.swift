extension ByteSplice {
    /// Two edits of the same `base`, `ours` and `theirs`, applied together — when they change
    /// different lines. Returns nil when they touch the same line (or one sits at the other's
    /// edge without a line break between them): then there is no merge that is obviously right.
    ///
    /// Used when a program wrote to a version of the book file the daemon had just replaced:
    /// that program's edit (`theirs`, relative to the version it wrote to) is applied on top of
    /// the daemon's write (`ours`) instead of being lost.
    public static func mergedContent(base: [UInt8], ours: ByteSplice, theirs: ByteSplice) -> [UInt8]? {
        if theirs.isEmpty { return ours.applied(to: base) }
        if ours.isEmpty { return theirs.applied(to: base) }
        let (first, second) = ours.range.lowerBound <= theirs.range.lowerBound ? (ours, theirs) : (theirs, ours)
        // Separate lines: a line break of the base lies strictly between the two ranges.
        guard first.range.upperBound < second.range.lowerBound,
            base[first.range.upperBound..<second.range.lowerBound].contains(0x0A)
        else { return nil }
        var merged = base
        second.apply(to: &merged)  // the later range first: the earlier one's offsets stay valid
        first.apply(to: &merged)
        return merged
    }
}
