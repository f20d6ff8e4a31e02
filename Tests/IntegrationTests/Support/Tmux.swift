import BooksTestSupport
import Glibc

/// Runs an interactive program in a private tmux server (`tmux -L booksync-test-N`).
final class TmuxSession: @unchecked Sendable {
    let server: String
    let tools: ToolRunner
    static let session = "main"

    init(tools: ToolRunner, command: String) async throws {
        server = "booksync-test-\(getpid())-\(DaemonHarness.uniqueNumber())"
        self.tools = tools
        try await tmux(["-f", "/dev/null", "new-session", "-d", "-s", Self.session, "-x", "120", "-y", "40", command])
    }

    @discardableResult
    func tmux(_ args: [String], timeout: Double = 10) async throws -> ChildResult {
        let result = try await tools.run(["tmux", "-L", server] + args, timeout: timeout)
        guard result.succeeded else { throw TestSupportError("tmux \(args) failed: \(result)") }
        return result
    }

    func screen() async -> String {
        (try? await tools.run(["tmux", "-L", server, "capture-pane", "-p", "-t", Self.session], timeout: 5))?.output
            ?? ""
    }

    /// Waits until the screen shows `text`.
    func waitForScreen(containing text: String, timeout: Double = 10) async throws {
        if await eventually(timeout: timeout, interval: 0.05, { await screen().contains(text) }) { return }
        throw TestSupportError("tmux screen never showed \(text); screen:\n\(await screen())")
    }

    /// `send-keys` (tmux key names such as Enter, C-o, End are allowed).
    func send(_ keys: String...) async throws {
        try await tmux(["send-keys", "-t", Self.session] + keys)
    }

    /// Sends text literally (-l).
    func type(_ text: String) async throws {
        try await tmux(["send-keys", "-t", Self.session, "-l", text])
    }

    /// Waits until the program exits (the session disappears).
    func waitForExit(timeout: Double = 15) async throws {
        let exited = try await eventually(timeout: timeout, interval: 0.05) {
            try await !tools.run(["tmux", "-L", server, "has-session", "-t", Self.session], timeout: 5).succeeded
        }
        if exited { return }
        let last = await screen()
        kill()
        throw TestSupportError("program in tmux did not exit within \(timeout) s; screen:\n\(last)")
    }

    /// Kills the tmux server (blocking; usable from defer).
    func kill() {
        _ = try? ChildProcess.runBlocking(
            ["tmux", "-L", server, "kill-server"], environment: tools.environment, timeout: 5)
    }
}
