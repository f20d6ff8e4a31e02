import BooksCore

extension ReconcilerStateMachine {
    /// Reports books whose unknown members alone were edited as updates (source `file`); a book
    /// already reported by a change set after seq `after` (its row changed in the same edit) or no
    /// longer in the file is not reported again.
    mutating func unknownMembersEdited(_ ids: [String], reportedAfter after: UInt64) -> [ReconcilerAction] {
        let unreported = ids.filter { context.version(of: $0) <= after }
        guard let applied = context.touch(ids: unreported, source: .file, actor: fileActor()) else { return [] }
        return [
            .broadcast(applied),
            .log(
                .info, "file edit: \(applied.changes.updated.count) updated (members other than id, name and author)",
                seq: applied.seq),
        ]
    }
}
