import BooksClient
import BooksTestSupport
import Glibc
import Testing

/// `Examples/LiveList` (a terminal list redrawn on change) run against a real `booksd`.
@Suite("Examples/LiveList")
struct LiveListExampleTests {
    /// The frames written so far (each ends with a blank line).
    static func frames(_ path: String) -> [String] {
        (TestFiles.readText(path) ?? "").split(separator: "\n\n").map(String.init)
    }

    /// Waits until the last frame satisfies `condition`.
    static func waitForFrame(
        _ path: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping (String) -> Bool
    ) async {
        let ok = await eventually(timeout: 15) { frames(path).last.map(condition) ?? false }
        #expect(
            ok, "\(what); frames so far:\n\(frames(path).joined(separator: "\n--\n"))", sourceLocation: sourceLocation)
    }

    @Test("redraws on each change and across a daemon restart; --frames ends it")
    func redrawsOnChange() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Frank Herbert", "b2|Emma|Jane Austen"])
        defer { daemon.stop() }
        let out = daemon.directory + "/livelist.out"
        let example = try ChildProcess.spawn(
            [BuildProducts.binDirectory + "/LiveList", "--socket", daemon.socket, "--sort", "name"],
            stdout: .appendFile(out), stderr: .appendFile(daemon.directory + "/livelist.err"))
        defer { example.terminate(grace: 5) }

        await Self.waitForFrame(out, "the first frame lists both books") {
            $0.hasPrefix("── books · 2 books · live ──") && $0.hasSuffix("Dune  Frank Herbert\nEmma  Jane Austen")
        }
        try daemon.handAppend("b3|Anathem|Neal Stephenson")
        await Self.waitForFrame(out, "a hand-appended book appears, in name order") {
            $0.contains("3 books · live")
                && $0.hasSuffix("\nAnathem  Neal Stephenson\nDune     Frank Herbert\nEmma     Jane Austen")
        }
        daemon.stop()
        await Self.waitForFrame(out, "the frame says it is reconnecting") { $0.contains("· reconnecting in ") }
        try daemon.handWrite("b1|Dune|Frank Herbert\nb3|Anathem|Neal Stephenson\n")
        try await daemon.start()
        await Self.waitForFrame(out, "after the restart, the book deleted meanwhile is gone") {
            $0.contains("2 books · live") && !$0.contains("Emma")
        }
        #expect(example.isRunning)

        // `--frames 1` prints the loaded list once and exits 0.
        let once = try await ChildProcess.run(
            [BuildProducts.binDirectory + "/LiveList", "--socket", daemon.socket, "--frames", "1"], timeout: 30)
        #expect(once.status == 0, "\(once)")
        #expect(
            once.output.hasSuffix("── books · 2 books · live ──\nAnathem  Neal Stephenson\nDune     Frank Herbert\n\n"),
            "\(once)")
    }
}
