import BooksClient
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

extension FeedTests {
    @Test("resume after a client reconnect replays exactly the missed changes")
    func resumeAfterClientReconnect() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen", "b2|Dune|Frank Herbert"])
        let writer = try await daemon.connect("writer")
        var client = try await daemon.connect("sub")
        var recorder = FeedRecorder(client.changes())
        _ = try await writer.insert([BookDraft(id: "c1", name: "Ulysses", author: "James Joyce")])
        _ = try await writer.update([BookPatch(id: "b1", name: "Persuasion")])
        await recorder.waitForSeq(2)
        guard case .snapshot(let first)? = recorder.snapshot.first else {
            Issue.record("no snapshot")
            return
        }
        let resume = ResumePoint(epoch: first.epoch, seq: recorder.lastSeq)
        recorder.cancel()
        client.close()

        // Changes while disconnected: client writes and a hand edit.
        _ = try await writer.delete(["b2"])
        try daemon.handAppend("h1|Middlemarch|George Eliot")
        _ = try await writer.update([BookPatch(id: "c1", author: "J. Joyce")])
        #expect(await eventually(timeout: 5) { ((try? await self.seqNow(writer)) ?? 0) >= 5 })

        client = try await daemon.connect("sub-again")
        recorder = FeedRecorder(client.changes(from: resume))
        await recorder.waitForSeq(5)
        _ = try await writer.insert([BookDraft(id: "c2", name: "Beloved", author: "Toni Morrison")])
        await recorder.waitForSeq(6)
        try await Task.sleep(for: .milliseconds(100))  // room for a stray duplicate to show up
        let items = recorder.snapshot
        #expect(!items.contains { if case .snapshot = $0 { true } else { false } }, "a resume must not send a snapshot")
        #expect(!items.contains { if case .resyncRequired = $0 { true } else { false } })
        #expect(recorder.changes.map(\.seq) == [3, 4, 5, 6])
        #expect(recorder.changes.map(\.source) == [.client, .file, .client, .client])
        #expect(recorder.changes[0].changes.deleted.map(\.id) == ["b2"])
        #expect(recorder.changes[1].changes.inserted == [Book(id: "h1", name: "Middlemarch", author: "George Eliot")])
        recorder.cancel()
        daemon.stop()
    }

    func seqNow(_ client: BooksClient) async throws -> UInt64 {
        try await client.ping()?.seq ?? 0
    }

    enum Stop: String, CaseIterable, Sendable { case sigterm, sigkill }

    @Test(
        "resume across a daemon restart: no resync, the edits made while it was down come as the next seq, once",
        arguments: Stop.allCases)
    func resumeAcrossRestart(_ how: Stop) async throws {
        let daemon = try await FeedDaemon(rows: [
            "b1|Emma|Jane Austen", "b2|Dune|Frank Herbert", "b3|Ulysses|James Joyce",
        ])
        let ctlOut = daemon.directory + "/ctl.out"
        let ctlErr = daemon.directory + "/ctl.err"
        let ctl = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--socket", daemon.socket, "subscribe", "--json", "--mirror"],
            stdout: .appendFile(ctlOut), stderr: .appendFile(ctlErr), newProcessGroup: false)
        defer { ctl.terminate(grace: 60) }
        let plainOut = daemon.directory + "/plain.out"
        let plain = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--socket", daemon.socket, "subscribe", "--json"],
            stdout: .appendFile(plainOut), stderr: .appendFile(daemon.directory + "/plain.err"),
            newProcessGroup: false)
        defer { plain.terminate(grace: 60) }
        func ctlLines(_ path: String = ctlOut) -> [[String: Any]] {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        let writer = try await daemon.connect("writer")
        let client = try await daemon.connect("sub")
        let recorder = FeedRecorder(client.changes())
        // Wait until both booksctl are subscribed (they count among the subscribers).
        let subscribed = await eventually(timeout: 5) { ((try? await writer.status().subscribers) ?? 0) >= 3 }
        #expect(subscribed, "booksctl did not subscribe: \(daemon.log)")
        _ = try await writer.update([BookPatch(id: "b1", name: "Persuasion")])
        await recorder.waitForSeq(1)
        #expect(await eventually(timeout: 5) { ctlLines().count == 1 && ctlLines(plainOut).count == 1 })
        guard case .snapshot(let snap)? = recorder.snapshot.first else {
            Issue.record("no snapshot")
            return
        }
        let resume = ResumePoint(epoch: snap.epoch, seq: 1)
        recorder.cancel()
        client.close()
        writer.close()

        if how == .sigterm {
            let status = daemon.stop()
            #expect(status == 0, "booksd exit status \(status)")
        } else {
            daemon.crash()
        }
        // Hand edits while the daemon is down: one update, one delete, one insert.
        try daemon.handWrite("b1|Persuasion|Jane Austen\nb2|Dune|F. Herbert\nh1|Beloved|Toni Morrison\n")
        try await daemon.start()

        let again = try await daemon.connect("sub-again")
        let resumed = FeedRecorder(again.changes(from: resume))
        await resumed.waitForSeq(2)
        let items = resumed.snapshot
        // The saved history continues the epoch: the down-time edits are change set 2 (source
        // file), replayed from the restored change log — no resync, no snapshot.
        #expect(!items.contains { if case .resyncRequired = $0 { true } else { false } }, "\(items)")
        #expect(!items.contains { if case .snapshot = $0 { true } else { false } }, "\(items)")
        let changes = resumed.changes
        #expect(changes.map(\.seq) == [2], "\(items)")
        #expect(changes.first?.epoch == resume.epoch)
        #expect(changes.first?.source == .file)
        #expect(changes.first?.changes.updated.map(\.new.id) == ["b2"])
        #expect(changes.first?.changes.deleted.map(\.id) == ["b3"])
        #expect(changes.first?.changes.inserted.map(\.id) == ["h1"])

        // booksctl reconnected on its own and printed exactly the missed changes, once.
        let missedOK = await eventually(timeout: 8) { ctlLines().count >= 4 }
        #expect(
            missedOK,
            "booksctl output: \(ctlLines()) stderr: \((try? String(contentsOfFile: ctlErr, encoding: .utf8)) ?? "")")
        // Then a live change after the restart is printed once too.
        let writer2 = try await daemon.connect("writer")
        _ = try await writer2.update([BookPatch(id: "h1", author: "T. Morrison")])
        #expect(await eventually(timeout: 5) { ctlLines().count >= 5 })
        try await Task.sleep(for: .milliseconds(150))
        let lines = ctlLines()
        #expect(lines.count == 5, "\(lines)")
        let missed = lines.dropFirst().prefix(3).map { "\($0["kind"] as? String ?? "?") \($0["id"] as? String ?? "?")" }
        #expect(Set(missed) == ["update b2", "delete b3", "insert h1"], "\(lines)")
        #expect(lines.dropFirst().prefix(3).allSatisfy { $0["source"] as? String == "file" && $0["seq"] as? Int == 2 })
        #expect(lines.last?["kind"] as? String == "update")
        #expect(lines.last?["author"] as? String == "T. Morrison")
        #expect(lines.last?["source"] as? String == "client")
        #expect(lines.last?["seq"] as? Int == 3)
        // Without --mirror the same: the history continues the epoch, so there is no resync line.
        #expect(await eventually(timeout: 5) { ctlLines(plainOut).count >= 5 })
        let plainLines = ctlLines(plainOut)
        #expect(!plainLines.contains { $0["kind"] as? String == "resync" }, "\(plainLines)")
        #expect(plainLines.map { $0["seq"] as? Int ?? -1 } == [1, 2, 2, 2, 3], "\(plainLines)")
        #expect(plainLines.last?["author"] as? String == "T. Morrison")
        resumed.cancel()
        daemon.stop()
    }

    @Test("heartbeats carry the current seq, also past changes a filter hides")
    func heartbeatsCarryTheSeq() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"], settings: ["heartbeat_seconds=1"])
        let client = try await daemon.connect()
        let feed = FeedRecorder(client.changes(filter: BookFilter([BookCondition(.author, .equals, "Nobody")])))
        let writer = try await daemon.connect()
        _ = try await writer.update([BookPatch(id: "b1", name: "Persuasion")])
        let ok = await feed.wait("a heartbeat at seq 1", timeout: .seconds(10)) { items in
            items.contains { if case .heartbeat(let p) = $0 { p.seq == 1 } else { false } }
        }
        #expect(ok)
        #expect(feed.changes.isEmpty, "the filter hides the change")
        feed.cancel()
        daemon.stop()
    }

    @Test("SIGTERM sends subscribers a shutdown event with the current epoch and seq, then hangs up")
    func shutdownNoticeCarriesThePosition() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"])
        let raw = try LineClient(path: daemon.socket)
        let hello = try raw.helloReply()
        let epoch = try #require((hello["result"] as? [String: Any])?["epoch"] as? String)
        raw.sendRaw("{\"id\":\"s\",\"op\":\"subscribe\"}\n")
        #expect(raw.readJSON()?["ok"] as? Bool == true)
        #expect(raw.readJSON()?["event"] as? String == "snapshot")
        #expect(daemon.stop() == 0)
        let notice = raw.readJSON()
        #expect(notice?["event"] as? String == "shutdown")
        #expect(notice?["epoch"] as? String == epoch, "\(String(describing: notice))")
        #expect(notice?["seq"] as? Int == 0)
        #expect(raw.isClosedByPeer(timeout: 10))
    }

    @Test("resync-required when the history was trimmed (change_log_retention=2)")
    func resyncWhenHistoryTrimmed() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Emma|Jane Austen"], settings: ["change_log_retention=2"])
        let writer = try await daemon.connect("writer")
        let start = try #require(writer.helloPoint)
        for k in 1...5 { _ = try await writer.update([BookPatch(id: "b1", name: "Emma \(k)")]) }
        #expect(try await writer.ping()?.seq == 5)
        #expect(try await writer.status().oldestReplayableSeq == 3)

        // From seq 0: changes 1 and 2 are gone.
        let old = try await daemon.connect("old")
        let oldFeed = FeedRecorder(old.changes(from: start))
        await oldFeed.wait("resync then snapshot") { $0.count >= 2 }
        guard oldFeed.snapshot.count >= 2, case .resyncRequired(_, let seq, let reason) = oldFeed.snapshot[0],
            case .snapshot(let snap) = oldFeed.snapshot[1]
        else {
            Issue.record("got \(oldFeed.snapshot)")
            return
        }
        #expect(reason == "history-trimmed")
        #expect(seq == 5)
        #expect(snap.seq == 5 && snap.books == [Book(id: "b1", name: "Emma 5", author: "Jane Austen")])

        // From seq 3: still replayable.
        let recent = try await daemon.connect("recent")
        let recentFeed = FeedRecorder(recent.changes(from: ResumePoint(epoch: start.epoch, seq: 3)))
        await recentFeed.waitForSeq(5)
        #expect(recentFeed.changes.map(\.seq) == [4, 5])
        #expect(!recentFeed.snapshot.contains { if case .resyncRequired = $0 { true } else { false } })

        // From a seq in the future: resync too.
        let future = try await daemon.connect("future")
        let futureFeed = FeedRecorder(future.changes(from: ResumePoint(epoch: start.epoch, seq: 99)))
        await futureFeed.wait("resync") { $0.count >= 2 }
        if case .resyncRequired(_, _, let reason)? = futureFeed.snapshot.first {
            #expect(reason == "future-seq")
        } else {
            Issue.record("got \(futureFeed.snapshot)")
        }
        for r in [oldFeed, recentFeed, futureFeed] { r.cancel() }
        daemon.stop()
    }
}
