extension BookDocument {
    /// The change `rendering(edits)` makes, as one splice of `bytes` computed from the edited lines
    /// alone (no file-sized copy), trimmed of what the old and new spans share at either end: nil
    /// when `edits` is empty or appends (only line replacements and deletions have a place in the
    /// file). Applying it to `bytes` gives exactly `rendering(edits)`.
    public func splice(replacingLines edits: [DocumentEdit]) -> ByteSplice? {
        let (replacements, appended) = lineReplacements(edits)
        guard appended.isEmpty, let first = replacements.keys.min() else { return nil }
        let start = lines[first].start
        var replacement: [UInt8] = []
        let end = appendReplacing(replacements, from: start, into: &replacement)
        // Trim what the old and new spans share at either end: the splice is then the smallest.
        var prefix = 0
        while prefix < replacement.count, start + prefix < end, replacement[prefix] == bytes[start + prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < replacement.count - prefix, end - suffix > start + prefix,
            replacement[replacement.count - 1 - suffix] == bytes[end - 1 - suffix]
        {
            suffix += 1
        }
        return ByteSplice(
            range: (start + prefix)..<(end - suffix),
            replacement: Array(replacement[prefix..<(replacement.count - suffix)]))
    }
}
