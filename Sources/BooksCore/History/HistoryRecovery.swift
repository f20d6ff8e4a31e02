/// What the daemon found in its state directory at start, decided without I/O: the context to
/// continue, or why a new epoch must begin.
///
/// Guarantees: a context is restored only when the snapshot and the journal pass every check —
/// both checksummed and complete, written for this book file, the journal continuing this very
/// snapshot, no record after the last one ever published, no machine restart while the daemon was
/// running (records not yet on disk could be lost), no state older than a change set already
/// handed out in its epoch (a restored copy, its served mark), and every journal record yielding again the
/// change set it recorded — or, when the journal belongs to an earlier snapshot (a crash between
/// the renames of a snapshot write), the snapshot alone with nothing after it published. Anything
/// else is a new epoch with the reason; it never crashes.
public enum HistoryRecovery {
    /// What the caller knows about this run.
    public struct Expectation: Sendable {
        /// Identifies the book file (its absolute path and format): another file's state is foreign.
        public var fileKey: String
        /// The current boot id (16 bytes).
        public var bootID: [UInt8]
        /// The configured line limit (a different one would read the saved content differently).
        public var lineLimit: Int
        /// How many change sets the restored log keeps.
        public var retention: Int
        /// The last change set handed out, as recorded outside the state directory (nil: unknown).
        public var served: ResumePoint?

        /// Creates an expectation.
        public init(fileKey: String, bootID: [UInt8], lineLimit: Int, retention: Int, served: ResumePoint? = nil) {
            self.fileKey = fileKey
            self.bootID = bootID
            self.lineLimit = lineLimit
            self.retention = retention
            self.served = served
        }
    }

    /// A context rebuilt from saved history.
    public struct Restored: Sendable {
        /// The context at the last recorded transition.
        public var context: BookLedger
        /// The snapshot it started from.
        public var snapshotID: UInt64
        /// The snapshot's seq.
        public var snapshotSeq: UInt64
        /// How many journal records were replayed on top of it.
        public var replayed: Int
        /// Whether the journal found belongs to an earlier snapshot (a crash between the two
        /// renames of a snapshot write): it must be replaced by a fresh one, not continued.
        public var freshJournal = false
    }

    /// The outcome.
    public enum Outcome: Sendable {
        /// Continue this context (same epoch, seq and versions).
        case restored(Restored)
        /// Begin a new epoch; `reason` says why, for the log.
        case newEpoch(reason: String)
    }

    /// A boot id made from the boot time (wall clock minus time since boot, in seconds), for
    /// where the kernel's boot id cannot be read.
    public static func bootTimeID(seconds: Int64) -> [UInt8] {
        var id: [UInt8] = Array("BOOTTIME".utf8)
        withUnsafeBytes(of: seconds.littleEndian) { id.append(contentsOf: $0) }
        return id
    }

    /// Whether two boot ids name the same boot: equal, or boot times within 30 s of each other
    /// (the wall clock may be adjusted; two boots are minutes apart).
    static func sameBoot(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        if a == b { return true }
        let prefix = Array("BOOTTIME".utf8)
        guard a.count == 16, b.count == 16, Array(a[0..<8]) == prefix, Array(b[0..<8]) == prefix else { return false }
        func seconds(_ id: [UInt8]) -> Int64 { id[8..<16].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        return abs(seconds(a) - seconds(b)) <= 30
    }

    /// Why a state ending at `(epoch, seq)` is older than what was already handed out, if it is.
    static func staleness(epoch: String, seq: UInt64, _ expectation: Expectation) -> String? {
        guard let served = expectation.served, served.epoch == epoch, served.seq > seq else { return nil }
        return "the saved state ends at seq \(seq) but seq \(served.seq) of its epoch was already handed out"
            + " (an older copy of the state directory was put back)"
    }

    /// The reason given when there is no snapshot at all (a first start).
    public static let noSavedHistory = "no saved history yet"

    /// Decides from the files' contents (nil: the file does not exist) and the last published seq
    /// (nil: unknown).
    public static func restore(
        snapshot: [UInt8]?, journal: [UInt8]?, publishedSeq: UInt64?, expectation: Expectation
    ) -> Outcome {
        guard let snapshot else { return .newEpoch(reason: noSavedHistory) }
        var saved: HistorySnapshotFormat.Contents
        let header: HistoryJournalFormat.Header
        let transitions: [LedgerTransition]
        do throws(HistoryFormatError) {
            saved = try HistorySnapshotFormat.decode(snapshot)
            guard let journal else { return .newEpoch(reason: "the journal is missing") }
            (header, transitions) = try HistoryJournalFormat.decode(journal)
        } catch {
            return .newEpoch(reason: error.description)
        }
        guard saved.fileKey == expectation.fileKey else {
            return .newEpoch(reason: "the saved state belongs to another book file (\(saved.fileKey))")
        }
        guard saved.context.lineLimit == expectation.lineLimit else {
            return .newEpoch(reason: "max_line_bytes changed since the state was saved")
        }
        guard header.snapshotID == saved.snapshotID, header.baseSeq == saved.context.seq else {
            // A crash between a snapshot's rename and its journal's leaves the journal of an
            // earlier snapshot: the snapshot alone is then the whole state, provided nothing after
            // it was published and that journal's header was written in this boot — so was the
            // newer snapshot, with no reboot since, and the published page is the latest (a
            // header of another boot, even closed cleanly, cannot tell what a later run lost).
            if header.baseSeq <= saved.context.seq, sameBoot(header.bootID, expectation.bootID),
                let publishedSeq, publishedSeq <= saved.context.seq
            {
                if let stale = staleness(epoch: saved.context.epoch, seq: saved.context.seq, expectation) {
                    return .newEpoch(reason: stale)
                }
                let context = BookLedger(restoring: saved.context, retention: expectation.retention)
                return .restored(
                    Restored(
                        context: context, snapshotID: saved.snapshotID, snapshotSeq: saved.context.seq, replayed: 0,
                        freshJournal: true))
            }
            return .newEpoch(reason: "the journal does not continue the snapshot (it belongs to another state)")
        }
        if !header.closedCleanly, !sameBoot(header.bootID, expectation.bootID) {
            return .newEpoch(
                reason: "the machine restarted while booksd was running: changes not yet on disk may be lost")
        }
        if header.closedCleanly, !transitions.isEmpty {
            return .newEpoch(reason: "the journal has records after its clean close")
        }
        guard let publishedSeq else { return .newEpoch(reason: "the published-seq marker is missing") }
        var context = BookLedger(restoring: saved.context, retention: expectation.retention)
        saved.context.bytes = []  // the document now holds the only reference: replay edits it in place
        for (k, transition) in transitions.enumerated() where !context.replay(transition) {
            return .newEpoch(reason: "journal record \(k + 1) does not replay to the change set it recorded")
        }
        guard publishedSeq <= context.seq else {
            return .newEpoch(
                reason: "seq \(publishedSeq) was published but the journal ends at seq \(context.seq) (records lost)")
        }
        if let stale = staleness(epoch: context.epoch, seq: context.seq, expectation) {
            return .newEpoch(reason: stale)
        }
        _ = context.takeTransitions()
        return .restored(
            Restored(
                context: context, snapshotID: saved.snapshotID, snapshotSeq: saved.context.seq,
                replayed: transitions.count))
    }
}
