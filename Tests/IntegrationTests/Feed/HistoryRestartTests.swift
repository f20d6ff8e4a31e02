import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// Durable history: booksd keeps its epoch, seq, versions and change log in its state
/// directory, so subscribers resume across restarts; damaged or foreign state means a new epoch.
@Suite("Durable history across restarts")
struct HistoryRestartTests {
    static let rowCount = 120

    static func rows() -> [String] {
        (1...rowCount).map { k in String(format: "b%03d|Title%03d|Author%03d", k, k, k) }
    }

    /// 100 edits while booksd is down, each changing one book's name, made with real tools in
    /// turn: sed -i, perl -pi, ed, a Python atomic replace and (every tenth) vim -Es.
    static func editScript(file: String) -> String {
        """
        set -e
        f='\(file)'
        for i in $(seq 1 100); do
          n=$(printf '%03d' "$i")
          case $((i % 10)) in
            0) vim -Es -c "%s/Title$n/Edited$n/" -c wq "$f" ;;
            1|5) sed -i "s/Title$n/Edited$n/" "$f" ;;
            2|6) perl -pi -e "s/Title$n/Edited$n/" "$f" ;;
            3|7) printf ',s/Title%s/Edited%s/\\nw\\nq\\n' "$n" "$n" | ed -s "$f" ;;
            *) python3 -c "import os,sys; p=sys.argv[1]; s=open(p).read().replace('Title$n','Edited$n'); \
        open(p+'.tmp','w').write(s); os.replace(p+'.tmp',p)" "$f" ;;
          esac
        done
        """
    }

    @Test(
        "100 editor edits while booksd is down: the connected subscriber resumes without resync and gets exactly those edits once, in order",
        arguments: FeedTests.Stop.allCases)
    func hundredEditsWhileDown(_ how: FeedTests.Stop) async throws {
        let daemon = try await FeedDaemon(rows: Self.rows())
        let ctlOut = daemon.directory + "/ctl.out"
        let ctl = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--socket", daemon.socket, "subscribe", "--json"],
            stdout: .appendFile(ctlOut), stderr: .appendFile(daemon.directory + "/ctl.err"), newProcessGroup: false)
        defer { ctl.terminate(grace: 60) }
        func ctlLines() -> [[String: Any]] {
            ((try? String(contentsOfFile: ctlOut, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        let writer = try await daemon.connect("writer")
        #expect(await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) >= 1 })
        _ = try await writer.update([BookPatch(id: "b120", name: "Live before")])
        #expect(await eventually(timeout: 5) { ctlLines().count == 1 })
        let before = try await writer.get(["b120", "b110"])
        let epoch = writer.helloPoint?.epoch ?? "?"
        writer.close()

        if how == .sigterm {
            #expect(daemon.stop() == 0)
        } else {
            daemon.crash()
        }
        let edits = try await ChildProcess.run(["bash", "-c", Self.editScript(file: daemon.file)], timeout: 300)
        #expect(edits.succeeded, "\(edits)")
        try await daemon.start()
        #expect(daemon.log.contains("saved history restored"), "\(daemon.log)")

        // A client resuming from seq 1 replays the down-time change set: no resync, no snapshot.
        let again = try await daemon.connect("resumer")
        let resumed = FeedRecorder(again.changes(from: ResumePoint(epoch: epoch, seq: 1)))
        await resumed.waitForSeq(2, timeout: .seconds(20))
        let items = resumed.snapshot
        #expect(!items.contains { if case .resyncRequired = $0 { true } else { false } }, "\(items)")
        #expect(!items.contains { if case .snapshot = $0 { true } else { false } }, "\(items)")
        let expected = (1...100).map { String(format: "b%03d", $0) }
        let change = resumed.changes.first
        #expect(resumed.changes.map(\.seq) == [2])
        #expect(change?.epoch == epoch && change?.source == .file)
        #expect(change?.changes.updated.map(\.new.id).sorted() == expected)
        #expect(change?.changes.updated.allSatisfy { $0.new.name == "Edited" + $0.new.id.dropFirst() } == true)
        #expect(change?.changes.inserted.isEmpty == true && change?.changes.deleted.isEmpty == true)

        // Versions survive with the epoch: an expectedVersion read before the restart still holds.
        let after = try await again.get(["b120", "b110"])
        #expect(after.map(\.version) == before.map(\.version), "\(before) → \(after)")
        #expect(after.first?.version == 1)
        _ = try await again.update([BookPatch(id: "b120", name: "Live after", expectedVersion: 1)])

        // booksctl reconnected by itself: the 100 updates once each (seq 2), then the live one (seq 3).
        #expect(await eventually(timeout: 10) { ctlLines().count >= 102 }, "\(ctlLines().count) lines")
        try await Task.sleep(for: .milliseconds(150))
        let lines = ctlLines()
        #expect(lines.count == 102)
        #expect(lines.map { $0["seq"] as? Int ?? -1 } == [1] + Array(repeating: 2, count: 100) + [3])
        let ids = lines.dropFirst().prefix(100).compactMap { $0["id"] as? String }
        #expect(ids.sorted() == expected)
        #expect(lines.dropFirst().prefix(100).allSatisfy { $0["kind"] as? String == "update" })
        #expect(lines.allSatisfy { $0["event"] as? String != "resync" && $0["source"] as? String != "resync" })
        resumed.cancel()
        again.close()
        daemon.stop()
    }
}
