import BooksCore

extension ReconcilerStateMachine {
    /// A save from a stale buffer, rebased onto the current content (see ``mergeStaleSave(_:identity:)``).
    struct StaleSave {
        var base: FileVersion
        var result: ThreeWayMerge.Result
        var saved: [UInt8]
        /// The lock holder whose buffer it came from.
        var saver: String
    }

    /// Records the file's current version (seq and identity), for telling later which version an
    /// editor's buffer came from. Called after every input.
    mutating func noteVersion() {
        guard let identity, fileState == .present else { return }
        fileVersions.record(Self.version(seq: context.seq, identity: identity))
    }

    /// The version record of the file `identity` holding the content at `seq`.
    static func version(seq: UInt64, identity: FileIdentity, overlay: NetChanges? = nil) -> FileVersion {
        FileVersion(
            seq: seq, inode: identity.inode, size: identity.size,
            mtimeSeconds: Int64(identity.modified.tv_sec), mtimeNanoseconds: Int64(identity.modified.tv_nsec),
            overlay: overlay, placedSeconds: identity.placed.map { Int64($0.tv_sec) },
            placedNanoseconds: identity.placed.map { Int64($0.tv_nsec) })
    }

    /// How long before a replacing file's birth time the program that made it may have opened
    /// the book file (sed opens its input, then makes its output; a loaded machine stretches the
    /// gap): versions placed that much earlier are candidates too.
    static let birthSlackNanoseconds: Int64 = 100_000_000

    /// The versions a file renamed over the book file may have been made from, judged by its
    /// birth time: every version that may have been in place since shortly before it was made.
    /// Empty (no evidence) when the file kept its inode, the file system records no birth time,
    /// or the file was made after the newest version was placed (it may have read it all).
    func birthBases(_ identity: FileIdentity) -> [(FileVersion, holder: String)] {
        guard let born = identity.born, let previous = self.identity, previous.inode != identity.inode else {
            return []
        }
        let candidates = fileVersions.candidates(
            bornAt: Int64(born.tv_sec), nanoseconds: Int64(born.tv_nsec), slack: Self.birthSlackNanoseconds)
        return candidates.count > 1 ? candidates.map { ($0, holder: "") } : []
    }

    /// The net change from the version `base` to the content held, when it can still be told
    /// (the change log holds every change set since); nil when it cannot.
    func changesSince(_ base: FileVersion) -> NetChanges? {
        changesSince(seq: base.seq, overlay: base.overlay)
    }

    /// The net change from the content at `seq` (with `overlay` on top) to the content held,
    /// when the change log holds every change set since; nil when it does not.
    func changesSince(seq: UInt64, overlay: NetChanges? = nil) -> NetChanges? {
        guard seq <= context.seq, let log = context.log.changes(after: seq, currentSeq: context.seq) else {
            return nil
        }
        var net = overlay ?? NetChanges()
        for change in log { net.append(change.changes) }
        return net
    }

    /// When the editor locks seen beside the file name a version older than the content held (a
    /// buffer loaded before others wrote), the save `splice` rebased onto the content held; nil
    /// when the save stands as written (no lock, none names a known version, the saver's buffer
    /// was current, the change log no longer reaches back to it).
    func mergeStaleSave(_ splice: ByteSplice) -> StaleSave? {
        let bases =
            editorLocks.flatMap { lock -> [(FileVersion, holder: String)] in
                guard case .swap(let header) = lock, header.namesVersion else {
                    return lockBases[lock.holder].map { [($0, lock.holder)] } ?? []  // nano, Emacs
                }
                return fileVersions.candidates(namedBy: header).map { ($0, lock.holder) }
            } + vanishedHolders.compactMap { holder in lockBases[holder].map { ($0, holder) } }
        return mergeStaleSave(splice, bases: bases)
    }

    /// The save `splice` rebased onto the content held from the closest of `bases` (newest first,
    /// each with who saved from it), or nil when it stands as written.
    func mergeStaleSave(_ splice: ByteSplice, bases: [(FileVersion, holder: String)]) -> StaleSave? {
        guard !bases.isEmpty else { return nil }
        var save = context.document
        let saveChanges = save.update(applying: splice).changes
        guard !saveChanges.isEmpty else { return nil }
        // Several editors, or several versions within one second: the saver's base is the one
        // the save differs least from (the newest of equals: candidates come newest first).
        var best: (base: FileVersion, theirs: NetChanges, distance: Int, holder: String)?
        for (base, holder) in bases {
            guard let theirs = changesSince(base) else { continue }
            let distance = Self.distance(saveChanges: saveChanges, theirs: theirs)
            if best == nil || distance < best!.distance { best = (base, theirs, distance, holder) }
        }
        guard let best, !best.theirs.isEmpty else { return nil }
        let result = ThreeWayMerge.merge(
            save: save, current: context.document, saveChanges: saveChanges, theirs: best.theirs)
        guard !result.isSave || !result.conflicts.isEmpty else { return nil }
        return StaleSave(base: best.base, result: result, saved: save.bytes, saver: best.holder)
    }

    /// How many books differ between a base and the save, given the save's change from the
    /// content held and the net change from the base to it.
    static func distance(saveChanges: ChangeSet, theirs: NetChanges) -> Int {
        var distance = theirs.count
        func visit(_ id: String, current: Book?, save: Book?) {
            let base = theirs[id].map(\.before) ?? current
            if theirs[id] != nil { distance -= 1 }
            if !base.isIdentical(to: save) { distance += 1 }
        }
        for book in saveChanges.inserted { visit(book.id, current: nil, save: book) }
        for update in saveChanges.updated { visit(update.new.id, current: update.old, save: update.new) }
        for book in saveChanges.deleted { visit(book.id, current: book, save: nil) }
        return distance
    }
}
