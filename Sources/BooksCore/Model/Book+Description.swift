extension Book: CustomStringConvertible {
    /// `"Dune" by "Frank Herbert" [id]`: the fields quoted and escaped as Swift string literals,
    /// so that a newline or `|` in a name stays on one readable line.
    public var description: String { "\(name.debugDescription) by \(author.debugDescription) [\(id)]" }
}

extension BookUpdate: CustomStringConvertible {
    /// `[id] "Old" by "A" -> "New" by "B"`: the values before and after.
    public var description: String {
        "[\(new.id)] \(old.name.debugDescription) by \(old.author.debugDescription) -> "
            + "\(new.name.debugDescription) by \(new.author.debugDescription)"
    }
}

extension ChangeSet: CustomStringConvertible {
    /// The most books listed by `description`; the rest are counted.
    public static let describedBookLimit = 20

    /// A summary line (`1 inserted, 1 updated, 0 deleted`), then one line per book (`+` inserted,
    /// `~` updated, `-` deleted), at most `describedBookLimit` of them (then `… and N more`).
    public var description: String {
        var lines = ["\(inserted.count) inserted, \(updated.count) updated, \(deleted.count) deleted"]
        let all =
            inserted.lazy.map { "  + \($0)" } + updated.lazy.map { "  ~ \($0)" } + deleted.lazy.map { "  - \($0)" }
        lines += all.prefix(Self.describedBookLimit)
        if count > Self.describedBookLimit { lines.append("  … and \(count - Self.describedBookLimit) more") }
        return lines.joined(separator: "\n")
    }
}
