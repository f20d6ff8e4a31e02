import BooksCore

/// What one store looks like now: the row of `stores` and of systemd's `STATUS=` summary.
///
/// A value type copied out of the store's engine (its state machine's last decision); it never
/// waits for the store's file.
public struct StoreStatus: Sendable, Hashable {
    /// The store's name.
    public var name: StoreName
    /// Its book file.
    public var path: String
    /// Its format.
    public var format: BookFileFormat
    /// `present`, `missing`, `unavailable` or `confirming` (see `FileState.word`).
    public var state: String
    /// Why the file is not plainly present (nil when it is).
    public var problem: String?
    /// Books currently held.
    public var bookCount: Int
    /// Lines of the file that are not books (kept byte for byte).
    public var badLines: Int
    /// The store's lineage.
    public var epoch: String
    /// The store's last sequence number.
    public var seq: UInt64

    /// Creates a status row.
    public init(
        name: StoreName, path: String, format: BookFileFormat, state: String, problem: String? = nil,
        bookCount: Int, badLines: Int, epoch: String, seq: UInt64
    ) {
        self.name = name
        self.path = path
        self.format = format
        self.state = state
        self.problem = problem
        self.bookCount = bookCount
        self.badLines = badLines
        self.epoch = epoch
        self.seq = seq
    }
}
