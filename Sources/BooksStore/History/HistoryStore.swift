import BooksCore
import Glibc

/// The daemon's saved history in its state directory — the one place that writes it.
///
/// Files: `snapshot` (a whole context, `HistorySnapshotFormat`), `journal` (the transitions since
/// that snapshot, `HistoryJournalFormat`) and `published` (a page holding the last seq handed to
/// subscribers). Write path, in order:
/// 1. `publish(_:)` before a change set is broadcast: one `pwrite` of the page's first 16 bytes (no
///    `fsync`; never a shared mapping, which a file shortened by someone else turns into SIGBUS),
///    so a record missing after a crash is detected instead of reissued with another content.
/// 2. `append(_:)` after the broadcast: one `pwrite` per transition, no `fsync`.
/// 3. `writeSnapshot(_:)` when `snapshotDue` (the replay it saves outweighs the write): the page,
///    then the snapshot and a fresh journal, each written to a new file and renamed into place.
/// 4. `writeSnapshot(_:durably:closing:)` at a clean stop: a final snapshot and a journal marked
///    closed cleanly, with `fdatasync`s, then the published page with `fdatasync` — the only state that
///    survives a machine restart.
///
/// A process crash loses nothing the kernel accepted (page cache); a power cut while running
/// costs the epoch (the journal's boot id tells), never a wrong event.
///
/// `@unchecked Sendable` is safe: `restore` runs before the engine exists; after it, every method
/// is called only from the engine's serial queue (`BookEngine+History` asserts it with
/// `dispatchPrecondition`), so its mutable state is never touched by two threads.
public final class HistoryStore: @unchecked Sendable {
    /// The state directory.
    public let directory: StateDirectory
    /// Identifies the book file (see `HistoryRecovery.Expectation.fileKey`).
    public let fileKey: String
    /// The current boot id.
    public let bootID: [UInt8]
    /// Where the last change set handed out is recorded outside the state directory (nil: nowhere).
    public let servedMark: ServedMarkAttribute?
    /// The epoch of the context being saved, once known (restored, or its first snapshot written).
    private var epoch: String?
    private var journal: Int32 = -1
    private var journalEnd = 0
    /// The open `published` page.
    private var marker: Int32 = -1
    /// Whether the page holds its magic (a snapshot exists): `publish` then writes magic and seq.
    private var stamped = false
    private var snapshotID: UInt64 = 0
    private var baseSeq: UInt64 = 0
    /// Records replayed at start on top of the snapshot (each charged the whole content).
    private var restoredRecords = 0
    /// The replay cost of the records appended since the snapshot (see `append`).
    private var replayCost = 0
    /// Whether the journal is open and continuing a snapshot (false until a run began).
    public private(set) var isRunning = false
    /// Set by `restore` when the journal found belongs to an earlier snapshot: `resume` replaces it.
    private var journalStale = false
    /// Set when a write failed: nothing more is appended until a snapshot succeeds.
    private var broken = false
    /// While broken, a snapshot is tried again only every `retryInterval` inputs (a full disk is
    /// not hammered with whole-file writes).
    private var retryCountdown = 0
    static let retryInterval = 256

    static let markerSize = 4096
    static let markerMagic: [UInt8] = Array("BKPUBL".utf8) + [0, 1]
    /// Replay cost allowed before a snapshot, in bytes moved: a record costs the content after
    /// its splice (replaying moves that tail) plus its replacement, and at least
    /// `replayBudget / 8192` (so at most 8,192 records are replayed: each also costs a diff and a
    /// comparison) and 4 KiB. An append at the end of a 1M-row file thus costs 256 KiB, an edit at
    /// its start the whole file.
    public static let replayBudgetBytes = 2 << 30
    /// This store's replay budget (`replayBudgetBytes` unless a test asked for less).
    public let replayBudget: Int
    /// The journal is compacted when it holds more bytes than this or the content, whichever is more.
    public static let journalBudgetBytes = 8 << 20

    /// Opens the state directory at `path` for the book file `fileKey`; a snapshot is due when
    /// replaying the journal would move `replayBudget` bytes.
    public init(
        directory path: String, fileKey: String, replayBudget: Int = HistoryStore.replayBudgetBytes,
        servedMark: ServedMarkAttribute? = nil
    ) throws(HistoryStoreError) {
        directory = try StateDirectory.open(path)
        self.fileKey = fileKey
        self.servedMark = servedMark
        self.replayBudget = replayBudget
        bootID = Self.currentBootID()
        marker = try openMarker()
    }

    deinit {
        if marker >= 0 { Glibc.close(marker) }
        if journal >= 0 { Glibc.close(journal) }
        Glibc.close(directory.fd)
    }

    /// Reads the saved history and decides whether it can be continued (see `HistoryRecovery`).
    public func restore(lineLimit: Int, retention: Int) -> HistoryRecovery.Outcome {
        let expectation = HistoryRecovery.Expectation(
            fileKey: fileKey, bootID: bootID, lineLimit: lineLimit, retention: retention, served: servedMark?.read())
        do throws(HistoryStoreError) {
            let snapshot = try directory.read("snapshot")
            let journal = snapshot == nil ? nil : try directory.read("journal")
            let published = publishedSeq
            stamped = published != nil
            let outcome = HistoryRecovery.restore(
                snapshot: snapshot, journal: journal, publishedSeq: published, expectation: expectation)
            if case .restored(let restored) = outcome {
                epoch = restored.context.epoch
                snapshotID = restored.snapshotID
                baseSeq = restored.snapshotSeq
                restoredRecords = restored.replayed
                replayCost = 0
                journalEnd = journal?.count ?? 0
                journalStale = restored.freshJournal
            }
            return outcome
        } catch {
            return .newEpoch(reason: error.description)
        }
    }

    /// The last seq recorded by `publish`, if the marker page is valid.
    var publishedSeq: UInt64? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let n = bytes.withUnsafeMutableBytes { pread(marker, $0.baseAddress!, 16, 0) }
        guard n == 16, Array(bytes[0..<8]) == Self.markerMagic else { return nil }
        return bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Continues the restored history: marks the journal as written by this run (durably, before
    /// anything is published), or replaces a journal of an earlier snapshot with a fresh one.
    public func resume() throws(HistoryStoreError) {
        let header = HistoryJournalFormat.encode(
            .init(closedCleanly: false, snapshotID: snapshotID, baseSeq: baseSeq, bootID: bootID))
        if journalStale {
            // The journal of an earlier snapshot: a fresh one takes its place, synced.
            journal = try writeFile("journal", [header], durably: true, keepOpen: true) ?? -1
            directory.sync()
            journalEnd = header.count
            journalStale = false
            broken = false
            isRunning = true
            return
        }
        let file = try directory.openForWriting("journal")
        do {
            try StateDirectory.write(file, [header], at: 0, path: directory.path + "/journal")
        } catch {
            Glibc.close(file)
            throw error
        }
        fdatasync(file)
        journal = file
        isRunning = true
    }

    /// Records that change set `seq` is about to be handed to subscribers (one `pwrite`, page
    /// cache only), and in the served mark. When the page cannot be written (a shortened page on a
    /// full disk), nothing more is appended until a snapshot succeeds: no record is kept that the
    /// page does not cover.
    public func publish(_ seq: UInt64) {
        if !writePage(seq) { broken = true }
    }

    /// Writes `seq` into the page (with the magic once stamped) and the served mark; false when
    /// the page could not be written.
    private func writePage(_ seq: UInt64) -> Bool {
        if let epoch { servedMark?.write(ResumePoint(epoch: epoch, seq: seq)) }
        var bytes = stamped ? Self.markerMagic : []
        withUnsafeBytes(of: seq.littleEndian) { bytes.append(contentsOf: $0) }
        let offset = stamped ? 0 : 8
        do {
            try StateDirectory.write(marker, [bytes], at: offset, path: directory.path + "/published")
            return true
        } catch {
            return false
        }
    }

    /// Appends transitions to the journal (no `fsync`); `contentBytes` is the content's size after
    /// them (for their replay cost).
    public func append(_ transitions: [LedgerTransition], contentBytes: Int) throws(HistoryStoreError) {
        guard isRunning, !broken, !transitions.isEmpty else { return }
        let records = transitions.map { HistoryJournalFormat.encode($0) }
        do {
            try StateDirectory.write(journal, records, at: journalEnd, path: directory.path + "/journal")
        } catch {
            broken = true
            throw error
        }
        journalEnd += records.reduce(0) { $0 + $1.count }
        let minimum = max(4096, replayBudget / 8192)
        for transition in transitions {
            let tail = max(0, contentBytes - transition.splice.range.lowerBound)
            replayCost &+= max(minimum, tail + transition.splice.replacement.count)
        }
    }

    /// Whether a snapshot should be written now, for content of `contentBytes`.
    public func snapshotDue(contentBytes: Int) -> Bool {
        if broken {
            retryCountdown -= 1
            guard retryCountdown <= 0 else { return false }
            retryCountdown = Self.retryInterval
            return true
        }
        guard isRunning else { return true }
        let restored = restoredRecords.multipliedReportingOverflow(by: max(contentBytes, 4096))
        let replay = restored.partialValue.addingReportingOverflow(replayCost)
        return restored.overflow || replay.overflow || replay.partialValue >= replayBudget
            || journalEnd >= max(Self.journalBudgetBytes, contentBytes)
    }

    /// Writes `saved` as the new snapshot and starts an empty journal after it; with `durably`,
    /// both are synced to disk first. `closing` marks the journal closed cleanly (no more writes).
    public func writeSnapshot(
        _ saved: SavedLedger, durably: Bool = false, closing: Bool = false
    )
        throws(HistoryStoreError)
    {
        // The page first (stamped, with this seq, never lower than any published): a crash before
        // both renames then finds either the earlier state with nothing published after it, or
        // this snapshot with a valid page — never a finished snapshot behind an unstamped page.
        stamped = true
        epoch = saved.epoch
        let pageWritten = writePage(saved.seq)
        var id: UInt64 = 0
        while id == 0 { id = UInt64.random(in: 1...UInt64.max) }
        let chunks = HistorySnapshotFormat.encode(saved, fileKey: fileKey, snapshotID: id)
        try writeFile("snapshot", chunks, durably: durably)
        let header = HistoryJournalFormat.encode(
            .init(closedCleanly: closing, snapshotID: id, baseSeq: saved.seq, bootID: bootID))
        let file = try writeFile("journal", [header], durably: durably, keepOpen: !closing)
        if durably { directory.sync() }
        if journal >= 0 { Glibc.close(journal) }
        journal = file ?? -1
        journalEnd = header.count
        snapshotID = id
        baseSeq = saved.seq
        restoredRecords = 0
        replayCost = 0
        broken = !pageWritten
        isRunning = !closing
        // Without this, a power cut after a clean stop could find the page as first created
        // (zeros) and end the epoch.
        if durably, fdatasync(marker) != 0 {
            throw .system(operation: "fdatasync", path: directory.path + "/published", errno: errno)
        }
    }

    /// Writes `chunks` to `name.new`, then renames it over `name`; returns the open file if asked.
    @discardableResult
    private func writeFile(
        _ name: String, _ chunks: [[UInt8]], durably: Bool, keepOpen: Bool = false
    )
        throws(HistoryStoreError) -> Int32?
    {
        let file: Int32
        do {
            file = try directory.create(name + ".new")
        } catch {
            broken = true
            throw error
        }
        do throws(HistoryStoreError) {
            try StateDirectory.write(file, chunks, at: 0, path: directory.path + "/" + name + ".new")
            if durably, fdatasync(file) != 0 {
                throw HistoryStoreError.system(operation: "fdatasync", path: directory.path + "/" + name, errno: errno)
            }
            try directory.rename(name + ".new", over: name)
        } catch {
            Glibc.close(file)
            broken = true
            throw error
        }
        if keepOpen { return file }
        Glibc.close(file)
        return nil
    }

    /// Opens (creating if needed) the published-seq page, kept open for `publish`.
    private func openMarker() throws(HistoryStoreError) -> Int32 {
        var file = openat(directory.fd, "published", O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if file < 0, errno == ENOENT {
            file = try directory.create("published")
            Glibc.close(file)
            file = try directory.openForWriting("published")
            let page = [UInt8](repeating: 0, count: Self.markerSize)
            try StateDirectory.write(file, [page], at: 0, path: directory.path + "/published")
        } else if file < 0 {
            throw .system(operation: "open", path: directory.path + "/published", errno: errno)
        }
        do throws(HistoryStoreError) {
            let size = try directory.checkOwnFile(file, name: "published")
            if size != Self.markerSize, ftruncate(file, off_t(Self.markerSize)) != 0 {
                throw .system(operation: "ftruncate", path: directory.path + "/published", errno: errno)
            }
        } catch {
            Glibc.close(file)
            throw error
        }
        return file
    }

    /// `/proc/sys/kernel/random/boot_id` as 16 bytes; where it is hidden (systemd's
    /// `ProcSubset=pid`), the boot time from the clocks (see `HistoryRecovery.bootTimeID`).
    static func currentBootID() -> [UInt8] {
        if let file = fopen("/proc/sys/kernel/random/boot_id", "r") {
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, 64, file) != nil {
                let hex = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }.filter {
                    $0 != UInt8(ascii: "-") && $0 != 10
                }
                var result: [UInt8] = []
                var k = 0
                while k + 1 < hex.count, result.count < 16 {
                    guard let high = Self.hexValue(hex[k]), let low = Self.hexValue(hex[k + 1]) else { break }
                    result.append(high << 4 | low)
                    k += 2
                }
                if result.count == 16 { return result }
            }
        }
        var realtime = timespec()
        var boottime = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        clock_gettime(CLOCK_BOOTTIME, &boottime)
        return HistoryRecovery.bootTimeID(seconds: Int64(realtime.tv_sec) - Int64(boottime.tv_sec))
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension HistoryStore {
    /// Identifies a book file for its saved history: the format and the absolute path, with the
    /// directory's symlinks resolved (the file itself may be replaced by editors; its name stays).
    public static func fileKey(bookPath: String, format: BookFileFormat) -> String {
        let slash = bookPath.lastIndex(of: "/")
        let name = slash.map { String(bookPath[bookPath.index(after: $0)...]) } ?? bookPath
        let directory = slash.map { String(bookPath[..<$0]) } ?? "."
        var resolved = directory.isEmpty ? "/" : directory
        if let real = realpath(resolved, nil) {
            resolved = String(cString: real)
            free(real)
        }
        return format.rawValue + ":" + (resolved.hasSuffix("/") ? resolved : resolved + "/") + name
    }
}
