import BooksCore
import BooksProtocol
import BooksStore

/// What a replica's feed announced, kept in its store's state directory (`replica-feed.log`), so
/// a subscriber resuming in the owner's seqs is replayed after a replica restart as before it.
///
/// One line per announcement, in order: an owner change set as the feed's `change` line (the
/// owner's time, source and actor), or a jump (`J<TAB>SEQ<TAB>EPOCH`: the owner's books were read
/// again). Loading replays the lines into a `ReplicaFeed` (so the log is rebuilt exactly as it
/// was: consecutive change sets ending at the last position, at most its `limit`); a line cut short
/// by a crash ends the journal. Appended without `fsync` (a write lost in a power cut leaves the
/// journal behind the replica's record, and the feed then starts at the record's position with an
/// empty log: a resume gets `resync-required`, never a wrong replay). Bounded: once it holds twice
/// the feed's limit of lines it is replaced (atomically) by the feed's log.
///
/// A value: the replica's machine thread is its only user.
struct ReplicaFeedJournal {
    static let name = "replica-feed.log"

    let directory: StateDirectory
    /// Lines in the file now.
    private(set) var lines = 0

    init(directory: StateDirectory) { self.directory = directory }

    /// The announcements kept, oldest first (none when the file is missing or unreadable).
    mutating func load() -> [ReplicaAnnouncement] {
        guard let bytes = try? directory.read(Self.name, sizeLimit: 1 << 30) else { return [] }
        var kept: [ReplicaAnnouncement] = []
        var rest = bytes[...]
        while let end = rest.firstIndex(of: UInt8(ascii: "\n")) {
            guard let announcement = Self.announcement(rest[rest.startIndex..<end]) else { break }
            kept.append(announcement)
            rest = rest[(end + 1)...]
        }
        lines = kept.count
        return kept
    }

    /// Appends `announcement`; once the file holds more than twice `feed`'s limit of lines, it is
    /// replaced by `feed`'s log (`log()`, asked only then).
    mutating func keep(
        _ announcement: ReplicaAnnouncement, limit: Int, log: () -> [SequencedChangeSet]
    ) throws(HistoryStoreError) {
        if lines + 1 > 2 * limit {
            let kept = log()
            try directory.replace(Self.name, with: kept.flatMap { Self.line(.change($0)) })
            lines = kept.count
            if case .change(let change) = announcement, kept.last?.seq == change.seq,
                kept.last?.epoch == change.epoch
            {
                return
            }
        }
        try directory.append(Self.name, Self.line(announcement), durably: false)
        lines += 1
    }

    /// `announcement` as one line (with its newline).
    static func line(_ announcement: ReplicaAnnouncement) -> [UInt8] {
        switch announcement {
        case .change(let change):
            // A change set with no books has no `change` line: kept as the position it reached
            // (a resume across it is then a resync, never a wrong replay).
            guard let event = MessageEncoder.changeEvent(change) else {
                return line(.jump(epoch: change.epoch, seq: change.seq))
            }
            var bytes = MessageEncoder.encode(event)
            if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            return bytes
        case .jump(let epoch, let seq):
            return Array("J\t\(seq)\t\(epoch)\n".utf8)
        }
    }

    /// The announcement of one line (without its newline), or nil when it is not one.
    static func announcement(_ line: ArraySlice<UInt8>) -> ReplicaAnnouncement? {
        if line.first == UInt8(ascii: "J") {
            let parts = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 1,
                let seq = UInt64(String(decoding: parts[1], as: UTF8.self)), !parts[2].isEmpty
            else { return nil }
            return .jump(epoch: String(decoding: parts[2], as: UTF8.self), seq: seq)
        }
        guard case .event(let event)? = try? MessageDecoder().decode(Array(line)), event.event == .change else {
            return nil
        }
        return .change(ReplicaLink.changeSet(event))
    }
}
