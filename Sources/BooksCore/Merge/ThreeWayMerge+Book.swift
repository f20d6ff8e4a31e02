extension ThreeWayMerge {
    /// Merges one book three ways by the stale-save rules: `base` is the version both sides started
    /// from, `mine` the local side's, `theirs` the other side's (nil: absent or deleted).
    ///
    /// Guarantees the same decisions as a file merge: unchanged on one side → the other side's
    /// value; changed the same way → that value; changed differently → `mine` stands per field and
    /// a conflict lists both; a delete against a change keeps the changed book (a conflict).
    /// Idempotent: merging the result again with the same `base` and `theirs` gives it unchanged.
    public static func merge(
        id: String, base: Book?, mine: Book?, theirs: Book?
    ) -> (book: Book?, conflicts: [MergeConflict]) {
        if mine.isIdentical(to: theirs) { return (mine, []) }
        var plan = MergePlan()
        var conflicts: [MergeConflict] = []
        resolve(id: id, base: base, mine: mine, theirs: theirs, plan: &plan, conflicts: &conflicts)
        if let rewrite = plan.rewrites[id] { return (rewrite, conflicts) }
        if let insert = plan.inserts[id] { return (insert, conflicts) }
        return (mine, conflicts)
    }
}
