/// The changes a save applies, as in SwiftData's `DataStoreSaveChangesRequest`.
public struct SaveRequest: Sendable, Hashable {
    /// A book to insert: with an id, or without one (the store assigns a UUID and reports the
    /// remapping from `temporaryID`).
    public struct Insertion: Sendable, Hashable {
        public var temporaryID: String
        public var id: String?
        public var name: String
        public var author: String

        public init(temporaryID: String, id: String? = nil, name: String, author: String) {
            self.temporaryID = temporaryID
            self.id = id
            self.name = name
            self.author = author
        }
    }

    public var inserted: [Insertion]
    /// Books to rewrite with these values (the ids must exist).
    public var updated: [Book]
    /// Ids of books to delete (the ids must exist).
    public var deleted: [String]
    /// Also give permanent ids to rows typed by hand as `name|author`.
    public var assignIDsToNewRows: Bool

    public init(
        inserted: [Insertion] = [], updated: [Book] = [], deleted: [String] = [], assignIDsToNewRows: Bool = true
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.assignIDsToNewRows = assignIDsToNewRows
    }

    /// True when the request changes nothing by itself.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a save did (SwiftData's `DataStoreSaveChangesResult`).
public struct SaveResult: Sendable {
    /// How the canonical text changed from the document the save was based on (apply it with
    /// `BookLedger.apply(splice:)`). For an append that raced with another writer, this also
    /// holds the other writer's bytes.
    public var splice: ByteSplice
    /// The identity of the file written.
    public var identity: FileIdentity
    /// Temporary-to-permanent id assignments: insertions without id, and `line:N` rows typed by hand.
    public var remapped: [IdentifierRemap]
    /// The inserted books with their permanent ids, in request order.
    public var inserted: [Book]
    /// For an append (`appendIfPossible`): the bytes appended to the content the save was based
    /// on. When `splice` is anything else than appending exactly these, someone else wrote meanwhile.
    public var appended: [UInt8]? = nil
    /// The whole content (canonical text) that another program wrote to the version this save
    /// replaced, after the swap (it had opened the file an instant before): its edit, relative
    /// to the content the save was based on, still has to be applied (see `AtomicWriteResult`).
    public var lateEdit: [UInt8]? = nil
    /// False when the rewrite is in place but its directory could not be synced (see
    /// `AtomicWriteResult.directorySynced`).
    public var directorySynced = true

    /// A result of these fields.
    public init(
        splice: ByteSplice, identity: FileIdentity, remapped: [IdentifierRemap], inserted: [Book],
        appended: [UInt8]? = nil, lateEdit: [UInt8]? = nil, directorySynced: Bool = true
    ) {
        self.splice = splice
        self.identity = identity
        self.remapped = remapped
        self.inserted = inserted
        self.appended = appended
        self.lateEdit = lateEdit
        self.directorySynced = directorySynced
    }

    /// The new canonical text, given the content the save was based on (a new array).
    public func content(basedOn base: [UInt8]) -> [UInt8] { splice.applied(to: base) }
}
