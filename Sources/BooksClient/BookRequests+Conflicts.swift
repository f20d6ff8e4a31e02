import BooksCore
import BooksProtocol

/// The kept conflicts of merged saves (protocol version 2): listing and settling them.
extension BookRequests {
    /// The store's unsettled conflicts, oldest first (empty when there are none).
    public func conflicts() async throws(BooksClientError) -> [RecordedConflict] {
        try await call(.conflicts) { _ in }.conflicts ?? []
    }

    /// Settles conflict `id` by taking `side`: `.theirs` writes the other side's value into the
    /// file (a new change set; the books as written are returned), `.mine` only drops the
    /// conflict (the saver's value is already in the file). Either way the conflict is no
    /// longer kept.
    ///
    /// - Throws: `.daemon` with code `not-found` when no unsettled conflict has that id.
    @discardableResult
    public func resolve(_ id: Int, take side: ConflictSide) async throws(BooksClientError) -> [Book] {
        try await call(.resolve) {
            $0.conflict = id
            $0.take = side
        }.books ?? []
    }
}
