import BooksStore
import FoundationEssentials

/// A replica's record in its store's state directory, kept at the cost of what changes.
///
/// Two files: `replica.json`, the whole record as of its `generation`, and `replica.log`, one
/// JSON line per update since (`{"generation":N,"update":{…}}`), appended and synced before
/// anything the update implies is sent. Loading takes the snapshot and applies, in order, the
/// log's updates newer than it; a line cut short by a crash ends the log (nothing it implied was
/// sent). Once the log outgrows the snapshot (and 4 MiB) the whole record is written as a new
/// snapshot and the log emptied; a crash between the two leaves updates the snapshot already
/// holds, which loading skips by their generation. An owner change set thus costs one append
/// of the entries it changed, not a rewrite of every book's entry.
///
/// A value: the replica's machine thread is its only user.
struct ReplicaRecordStore {
    static let snapshotName = "replica.json"
    static let logName = "replica.log"

    struct LogLine: Codable {
        var generation: UInt64
        var update: ReplicaRecordUpdate
    }

    let directory: StateDirectory
    /// The generation of the last update written.
    private(set) var generation: UInt64 = 0
    private var logBytes = 0
    private var snapshotBytes = 0
    /// The log is compacted once it holds more than this many bytes (and more than the snapshot).
    let compactionFloor: Int
    /// Updates naming more books than this may be written as a snapshot instead of a log line.
    static let wholeFloor = ReplicaRecordUpdate.wholeFloor

    init(directory: StateDirectory, compactionFloor: Int = 4 << 20) {
        self.directory = directory
        self.compactionFloor = compactionFloor
    }

    /// The record kept, or a fresh one (with a new replica id, written at once) when there is none.
    mutating func load() throws(HistoryStoreError) -> ReplicaRecord {
        guard let bytes = try directory.read(Self.snapshotName, sizeLimit: 1 << 30) else {
            let record = ReplicaRecord(replicaID: UUID().uuidString)
            try writeSnapshot(record)
            return record
        }
        var record: ReplicaRecord
        do {
            record = try JSONDecoder().decode(ReplicaRecord.self, from: Data(bytes))
        } catch {
            throw .refused(path: directory.path + "/" + Self.snapshotName, reason: "unreadable: \(error)")
        }
        snapshotBytes = bytes.count
        generation = record.generation ?? 0
        let log = try directory.read(Self.logName, sizeLimit: 1 << 30) ?? []
        logBytes = log.count
        let decoder = JSONDecoder()
        for line in log.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? decoder.decode(LogLine.self, from: Data(line)) else { break }
            guard entry.generation > generation else { continue }
            record.apply(entry.update)
            generation = entry.generation
        }
        record.generation = generation
        return record
    }

    /// Keeps `update` durably; `whole` is the record including it (written as a new snapshot
    /// when the log has grown past it). A `whole` update, or one naming at least half the
    /// record's books and more than `wholeFloor` (a first copy, a snapshot of the owner), is
    /// written as the new snapshot alone: appending it first would write it twice.
    mutating func keep(
        _ update: ReplicaRecordUpdate, whole: @autoclosure () -> ReplicaRecord
    )
        throws(HistoryStoreError)
    {
        let named = update.set.count + update.removed.count
        if update.whole {
            var record = whole()
            generation += 1
            record.generation = generation
            return try writeSnapshot(record)
        }
        if named > Self.wholeFloor {
            var record = whole()
            if named * 2 >= record.entries.count {
                generation += 1
                record.generation = generation
                return try writeSnapshot(record)
            }
        }
        let line = ReplicaRecordEncoder.logLine(generation: generation + 1, update) + [UInt8(ascii: "\n")]
        try directory.append(Self.logName, line, durably: true)
        generation += 1
        logBytes += line.count
        if logBytes > max(compactionFloor, snapshotBytes) {
            var record = whole()
            record.generation = generation
            try writeSnapshot(record)
        }
    }

    private mutating func writeSnapshot(_ record: ReplicaRecord) throws(HistoryStoreError) {
        // Written a chunk at a time: at a million books the record is ~150 MB of JSON.
        var written = 0
        try directory.replace(
            Self.snapshotName,
            chunks: ReplicaRecordEncoder.recordChunks(record).lazy.map {
                written += $0.count
                return $0
            })
        snapshotBytes = written
        try directory.replace(Self.logName, with: [])
        logBytes = 0
    }
}
