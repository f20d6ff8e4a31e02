import BooksClient
import BooksCore
import BooksTestSupport
import Testing

/// The `conflict` feed line, with real vim in tmux: a subscriber that asks for it
/// (`conflicts: true`) gets a merged save's conflict when it is recorded and when it is settled;
/// one that does not ask never sees it.
@Suite("Stale saves: the conflict feed line", .timeLimit(.minutes(3))) struct StaleSaveConflictFeedTests {
    /// The `.conflict` items a feed received.
    static func notices(_ recorder: FeedRecorder) -> [ConflictNotice] {
        recorder.snapshot.compactMap { if case .conflict(let n) = $0 { n } else { nil } }
    }

    /// The next `conflict` line `booksctl subscribe --json --conflicts` printed (change lines skipped).
    static func conflictLine(_ lines: LineReader?) async -> String? {
        guard let lines else { return nil }
        let deadline = MonotonicClock.seconds() + 10
        while let line = await lines.nextLineAsync(timeout: max(0, deadline - MonotonicClock.seconds())) {
            if line.hasPrefix(#"{"event":"conflict""#) { return line }
        }
        return nil
    }

    @Test("a same-field conflict: a feed asking for conflicts gets it recorded and settled, a plain feed never")
    func conflictLineOnlyForThoseWhoAsk() async throws {
        let two = Books.n(2)
        var clients: [BooksClient] = []
        var with: FeedRecorder?
        var without: FeedRecorder?
        var ctl: (process: ChildProcess, lines: LineReader)?
        defer {
            for recorder in [with, without] { recorder?.cancel() }
            for client in clients { client.close() }
            ctl?.process.terminate(grace: 2)
        }
        try await StaleSaveEditorTests().vimAndClientOnBookTwo(
            "stale-conflict-feed", vimCommand: ":%s/|\(two.name)|/|Vim Title|/",
            expected: TestBook(id: two.id, name: "Vim Title", author: two.author),
            { h, sub in
                let asking = try #require(with)
                let plain = try #require(without)
                await asking.wait("the conflict recorded", timeout: .seconds(20)) { _ in !Self.notices(asking).isEmpty }
                let recorded = try #require(Self.notices(asking).first)
                #expect(recorded.resolved == nil)
                #expect(recorded.conflict.conflict.id == two.id && recorded.conflict.conflict.kind == .name)
                #expect(recorded.conflict.conflict.mine?.name == "Vim Title")
                #expect(recorded.conflict.conflict.theirs?.name == "Client Title")
                #expect(asking.changes.contains { $0.seq == recorded.seq }, "the merge's change set comes first")
                let line = try #require(
                    await Self.conflictLine(ctl?.lines), "booksctl subscribe --conflicts printed none")
                #expect(
                    line.contains(#""conflict":\#(recorded.conflict.id)"#) && line.contains(#""mine":"Vim Title""#),
                    "\(line)")
                #expect(line.contains(#""theirs":"Client Title""#) && !line.contains("resolved"), "\(line)")
                let resolved = try await h.ctl(["resolve", String(recorded.conflict.id), "--take", "mine"])
                #expect(resolved.succeeded, "booksctl resolve: \(resolved)")
                await asking.wait("the conflict settled", timeout: .seconds(20)) { _ in
                    Self.notices(asking).contains { $0.resolved == .mine }
                }
                let settled = await Self.conflictLine(ctl?.lines)
                #expect(settled?.contains(#""resolved":"mine""#) == true, "\(settled ?? "none")")
                // A later change set reaches the plain feed after anything sent to it before.
                let later = try await h.ctl(["update", Books.n(3).id, "--name", "Later"])
                #expect(later.succeeded, "\(later)")
                let three = Books.n(3)
                _ = await sub.expectEvents(
                    [.update(TestBook(id: three.id, name: "Later", author: three.author), source: "client")], "later")
                await plain.wait("the later change", timeout: .seconds(20)) { _ in
                    plain.changes.contains { $0.changes.updated.contains { $0.new.name == "Later" } }
                }
                #expect(Self.notices(plain).isEmpty, "a feed that did not ask got conflicts: \(plain.snapshot)")
            },
            prepare: { h in
                for name in ["with-conflicts", "without"] {
                    clients.append(try await BooksClient.connect(socketPath: h.socket, clientName: name))
                }
                with = FeedRecorder(clients[0].changes(conflicts: true))
                without = FeedRecorder(clients[1].changes())
                let process = try ChildProcess.spawn(
                    [BuildProducts.booksctl, "--socket", h.socket, "subscribe", "--json", "--conflicts"],
                    environment: h.tools.environment, stdout: .pipe,
                    stderr: .appendFile(h.logDir + "/ctl-conflicts.log"))
                ctl = (process, LineReader(fd: process.stdoutPipe!))
                for recorder in [with, without] {
                    await recorder?.wait("the snapshot", timeout: .seconds(30)) { !$0.isEmpty }  // a loaded CI machine
                }
            }
        )
    }
}
