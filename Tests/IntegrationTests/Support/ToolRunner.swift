import BooksTestSupport

/// Runs commands with a hermetic environment, in a working directory, with a timeout (the whole
/// process group is killed; the status is then -2). stdout and stderr are interleaved.
struct ToolRunner: Sendable {
    var environment: [String: String]
    var workingDirectory: String

    /// Runs `argv` directly.
    func run(_ argv: [String], timeout: Double = 20) async throws -> ChildResult {
        // Working directory: via a tiny sh wrapper (posix_spawn_file_actions_addchdir_np is not portable).
        let wrapped = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", workingDirectory] + argv
        return try await ChildProcess.run(wrapped, environment: environment, stderr: .sameAsStdout, timeout: timeout)
    }

    /// Runs a bash script (`set -e` is NOT implied).
    func shell(_ script: String, timeout: Double = 20) async throws -> ChildResult {
        try await run(["/bin/bash", "-c", script], timeout: timeout)
    }

    /// Runs a bash script and throws unless it exits 0.
    @discardableResult
    func must(_ script: String, timeout: Double = 20) async throws -> ChildResult {
        let result = try await shell(script, timeout: timeout)
        guard result.succeeded else { throw TestSupportError("command failed: \(script)\n\(result)") }
        return result
    }
}

/// Quotes a string for bash.
func shellQuote(_ s: String) -> String {
    "'" + s.replacing("'", with: "'\\''") + "'"
}
