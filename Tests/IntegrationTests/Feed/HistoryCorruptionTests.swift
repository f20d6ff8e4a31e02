import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// Damaged, foreign or missing saved history: detected at start, logged with the
/// reason, and the daemon begins a new epoch — subscribers resync; no event of the old epoch.
@Suite("Durable history: damaged state means a new epoch")
struct HistoryCorruptionTests {
    enum Damage: String, CaseIterable, Sendable {
        case truncatedJournal, lastRecordCutCleanly, bitFlippedJournal, bitFlippedSnapshot, journalOfAnotherFile,
            stateOfAnotherFile
        case missingStateDirectory

        /// A fragment of the log line that must say why.
        var reason: String {
            switch self {
            case .truncatedJournal: "the journal is truncated"
            case .lastRecordCutCleanly: "was published but the journal ends at seq 2"
            case .bitFlippedJournal: "the journal fails its checksum"
            case .bitFlippedSnapshot: "the snapshot fails its checksum"
            case .journalOfAnotherFile: "the journal does not continue the snapshot"
            case .stateOfAnotherFile: "belongs to another book file"
            case .missingStateDirectory: "no saved history yet"
            }
        }
    }

    static func stateDirectory(_ daemon: FeedDaemon) -> String { daemon.directory + "/.books.txt.history" }

    /// Another book file's saved history (a second daemon, one client write, stopped cleanly).
    static func foreignState() async throws -> (FeedDaemon, String) {
        let other = try await FeedDaemon(rows: ["x1|Other|Someone"])
        let writer = try await other.connect("other-writer")
        _ = try await writer.update([BookPatch(id: "x1", name: "Other 2")])
        writer.close()
        #expect(other.stop() == 0)
        return (other, stateDirectory(other))
    }

    func damage(_ damage: Damage, state: String) async throws -> FeedDaemon? {
        let journal = state + "/journal"
        let snapshot = state + "/snapshot"
        switch damage {
        case .truncatedJournal:
            let bytes = try #require(TestFiles.readBytes(journal))
            try TestFiles.write(Array(bytes.dropLast(5)), to: journal, mode: 0o600)
        case .lastRecordCutCleanly:
            // Cut at a record boundary (as if the last record never reached the file).
            let bytes = try #require(TestFiles.readBytes(journal))
            var offset = 64
            var starts: [Int] = []
            while offset + 8 <= bytes.count {
                starts.append(offset)
                offset += 8 + (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            }
            try TestFiles.write(Array(bytes[..<(try #require(starts.last))]), to: journal, mode: 0o600)
        case .bitFlippedJournal:
            var bytes = try #require(TestFiles.readBytes(journal))
            bytes[bytes.count - 20] ^= 0x04
            try TestFiles.write(bytes, to: journal, mode: 0o600)
        case .bitFlippedSnapshot:
            var bytes = try #require(TestFiles.readBytes(snapshot))
            bytes[bytes.count / 2] ^= 0x01
            try TestFiles.write(bytes, to: snapshot, mode: 0o600)
        case .journalOfAnotherFile:
            let (other, otherState) = try await Self.foreignState()
            try TestFiles.write(try #require(TestFiles.readBytes(otherState + "/journal")), to: journal, mode: 0o600)
            return other
        case .stateOfAnotherFile:
            let (other, otherState) = try await Self.foreignState()
            for name in ["snapshot", "journal", "published"] {
                try TestFiles.write(
                    try #require(TestFiles.readBytes(otherState + "/" + name)), to: state + "/" + name, mode: 0o600)
            }
            return other
        case .missingStateDirectory:
            TestFiles.removeTree(state)
        }
        return nil
    }

    @Test(
        "a damaged, foreign or lost state directory ends in a new epoch with a resync, never a wrong event",
        arguments: Damage.allCases)
    func damagedState(_ damage: Damage) async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen", "b2|Dune|Frank Herbert"])
        let writer = try await daemon.connect("writer")
        let epoch = writer.helloPoint?.epoch ?? "?"
        for name in ["Persuasion", "Sense", "Mansfield"] {
            _ = try await writer.update([BookPatch(id: "b1", name: name)])
        }
        writer.close()
        daemon.crash()
        let other = try await self.damage(damage, state: Self.stateDirectory(daemon))
        _ = other
        // An edit while down: with a wrong diff or a replayed old journal it would show up wrongly.
        try daemon.handWrite("b1|Mansfield|Jane Austen\nb2|Dune|F. Herbert\nb3|Beloved|Toni Morrison\n")
        try await daemon.start()
        let newEpochLine = daemon.log.split(separator: "\n").last { $0.contains("new epoch:") }
        #expect(newEpochLine?.contains(damage.reason) == true, "\(daemon.log)")

        let again = try await daemon.connect("resumer")
        #expect(again.helloPoint?.epoch != epoch)
        let resumed = FeedRecorder(again.changes(from: ResumePoint(epoch: epoch, seq: 3)))
        await resumed.wait("resync then snapshot", timeout: .seconds(20)) { $0.count >= 2 }
        let items = resumed.snapshot
        guard case .resyncRequired(_, _, let reason) = items.first, case .snapshot(let fresh) = items.dropFirst().first
        else {
            Issue.record("expected resync-required then snapshot, got \(items)")
            return
        }
        #expect(reason == "different-epoch")
        #expect(fresh.epoch != epoch)
        #expect(
            fresh.books.map { "\($0.id)|\($0.name)|\($0.author)" }.sorted() == [
                "b1|Mansfield|Jane Austen", "b2|Dune|F. Herbert", "b3|Beloved|Toni Morrison",
            ])
        #expect(resumed.changes.allSatisfy { $0.epoch != epoch }, "an event of the old epoch: \(items)")

        // The new epoch is saved in turn: a clean restart continues it.
        resumed.cancel()
        again.close()
        #expect(daemon.stop() == 0)
        try await daemon.start()
        let third = try await daemon.connect("third")
        #expect(third.helloPoint?.epoch == fresh.epoch)
        third.close()
        daemon.stop()
    }

    @Test("a planted state file (a symlink) is never followed: new epoch")
    func plantedFiles() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"])
        let writer = try await daemon.connect("writer")
        let epoch = writer.helloPoint?.epoch ?? "?"
        _ = try await writer.update([BookPatch(id: "b1", name: "Persuasion")])
        writer.close()
        daemon.crash()
        let state = Self.stateDirectory(daemon)
        let journal = state + "/journal"
        try TestFiles.write(try #require(TestFiles.readBytes(journal)), to: daemon.directory + "/planted", mode: 0o600)
        unlink(journal)
        #expect(symlink(daemon.directory + "/planted", journal) == 0)
        try await daemon.start()
        #expect(daemon.log.contains("journal is refused: a symlink"), "\(daemon.log)")
        let again = try await daemon.connect("again")
        #expect(again.helloPoint?.epoch != epoch)
        again.close()
        daemon.stop()
    }
}
