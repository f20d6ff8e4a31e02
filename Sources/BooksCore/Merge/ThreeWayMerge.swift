/// Rebases a save made from an older version of the file onto the current one, record by record
/// and field by field, so that it never undoes what others wrote meanwhile.
///
/// With base B (the version the saver had read), current C (the file before the save) and the
/// save N, for each book: unchanged on one side → the other side's value; changed the same way on
/// both → that value; changed differently → a conflict, where the saver's value stands and the
/// others' is recorded. Per field (name, author). Inserts on both sides are kept; a delete on one
/// side against a change on the other is a conflict that keeps the changed book.
///
/// Guarantees:
/// - The saver's layout stands: every line of N — its order, comments, blank lines, bad lines,
///   rows without an id — is kept byte-for-byte, except rows the others' changes rewrite (a
///   changed book's row, keeping its line end) or remove (a book the others deleted and the saver
///   left as it was). A book the others inserted goes after the nearest book before it in C that
///   is in the result, else at the end of the file, in N's line-end style.
/// - Only the books that differ between C and N are looked at: the cost is the number of changes
///   plus one copy of N's bytes (no parse of B or of the result).
/// - Idempotent: merging the result again with the same B and C gives the result unchanged.
public enum ThreeWayMerge {
    /// What a merge produced.
    public struct Result: Sendable, Hashable {
        /// The merged file content.
        public var bytes: [UInt8]
        /// The conflicts, in the order their books appear in the save, then the current file.
        public var conflicts: [MergeConflict]
        /// True when the merged content is the save itself (nothing of the others' to re-apply).
        public var isSave: Bool
        /// The others' changes re-applied: the books that differ from the save to the result
        /// (empty when `isSave`).
        public var reapplied: ChangeSet
    }

    /// Merges `save` onto `current`. `saveChanges` is the change set from `current` to `save`
    /// (`BookDocument.diff(from: current, to: save)`, or the update the daemon computed anyway);
    /// `theirs` is the net change from the base to `current` (the change sets applied since the
    /// base, composed). The base's books are those of `current` with `theirs` undone.
    public static func merge(
        save: BookDocument, current: BookDocument, saveChanges: ChangeSet, theirs: NetChanges
    ) -> Result {
        var plan = MergePlan()
        var conflicts: [MergeConflict] = []
        var touched: [(current: Book?, save: Book?)] = []
        touched.reserveCapacity(saveChanges.count)
        for book in saveChanges.inserted { touched.append((nil, book)) }
        for update in saveChanges.updated { touched.append((update.old, update.new)) }
        for book in saveChanges.deleted { touched.append((book, nil)) }
        for (c, n) in touched {
            let id = (c ?? n)!.id
            let b = theirs[id].map(\.before) ?? c
            resolve(id: id, base: b, mine: n, theirs: c, plan: &plan, conflicts: &conflicts)
        }
        if plan.isEmpty { return Result(bytes: save.bytes, conflicts: conflicts, isSave: true, reapplied: ChangeSet()) }
        let bytes = plan.render(onto: save, current: current)
        return Result(
            bytes: bytes, conflicts: conflicts, isSave: ByteComparison.equal(bytes, save.bytes),
            reapplied: plan.changes(from: save))
    }

    /// Merges three parsed versions (diffs them by id first: for tests and tools; the daemon
    /// passes the change sets it already has to ``merge(save:current:saveChanges:theirs:)``).
    public static func merge(base: BookDocument, current: BookDocument, save: BookDocument) -> Result {
        merge(
            save: save, current: current, saveChanges: BookDocument.diff(from: current, to: save),
            theirs: NetChanges(BookDocument.diff(from: base, to: current)))
    }

    /// Decides one book that differs between the save (`mine`) and the current file (`theirs`).
    static func resolve(
        id: String, base: Book?, mine: Book?, theirs: Book?, plan: inout MergePlan,
        conflicts: inout [MergeConflict]
    ) {
        if base.isIdentical(to: theirs) { return }  // only the saver changed it: the save stands
        if base.isIdentical(to: mine) {  // only the others changed it: re-apply their change
            plan.set(id: id, to: theirs, inSave: mine != nil)
            return
        }
        switch (mine, theirs) {
        case (nil, .some(let t)):
            conflicts.append(MergeConflict(id: id, kind: .deletedByMine, base: base, mine: nil, theirs: t))
            plan.set(id: id, to: t, inSave: false)
        case (.some(let m), nil):
            conflicts.append(MergeConflict(id: id, kind: .deletedByTheirs, base: base, mine: m, theirs: nil))
        case (.some(let m), .some(let t)):
            let name = field(base?.name, m.name, t.name)
            let author = field(base?.author, m.author, t.author)
            if name.conflict {
                conflicts.append(MergeConflict(id: id, kind: .name, base: base, mine: m, theirs: t))
            }
            if author.conflict {
                conflicts.append(MergeConflict(id: id, kind: .author, base: base, mine: m, theirs: t))
            }
            let merged = Book(id: id, name: name.value, author: author.value)
            if !Optional(merged).isIdentical(to: m) { plan.set(id: id, to: merged, inSave: true) }
        case (nil, nil):
            break  // both deleted it: unreachable (the save and the current file differ)
        }
    }

    /// One field's three-way decision: the value, and whether both sides changed it differently
    /// (the saver's value stands then).
    static func field(_ base: String?, _ mine: String, _ theirs: String) -> (value: String, conflict: Bool) {
        if mine.utf8.elementsEqual(theirs.utf8) || base?.utf8.elementsEqual(theirs.utf8) == true {
            return (mine, false)
        }
        if base?.utf8.elementsEqual(mine.utf8) == true { return (theirs, false) }
        return (mine, true)
    }
}
