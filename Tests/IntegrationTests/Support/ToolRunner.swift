import Glibc

struct ToolResult: CustomStringConvertible {
    let status: Int32        // exit code, 128+signal, or -2 when it timed out (then killed)
    let output: String       // stdout and stderr interleaved
    var succeeded: Bool { status == 0 }
    var description: String { "status \(status), output:\n\(output)" }
}

/// Runs commands with a hermetic environment and a timeout (the whole process group is killed).
struct ToolRunner: Sendable {
    var environment: [String: String]
    var workingDirectory: String

    /// Runs `argv` directly.
    func run(_ argv: [String], timeout: Double = 20) async throws -> ToolResult {
        // Working directory: via a tiny sh wrapper (posix_spawn_file_actions_addchdir_np is not portable).
        let wrapped = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", workingDirectory] + argv
        let (readEnd, writeEnd) = try makePipe()
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.spawn(wrapped, environment: environment, stdout: .fd(writeEnd), stderr: .fd(writeEnd))
        } catch {
            close(readEnd); close(writeEnd); throw error
        }
        close(writeEnd)
        defer { close(readEnd) }
        var output: [UInt8] = []
        let deadline = monotonicNow() + timeout
        var eof = false
        while true {
            if !eof {
                if let chunk = await readAvailable(readEnd, timeout: 0.02) { output += chunk } else { eof = true }
            } else {
                await pause(0.01)
            }
            if let status = child.poll() {
                // Drain what is left; a background grandchild may keep the pipe open, so don't wait for EOF.
                let drainUntil = monotonicNow() + 0.2
                while !eof, monotonicNow() < drainUntil {
                    guard let chunk = await readAvailable(readEnd, timeout: 0.02) else { break }
                    if chunk.isEmpty { break }
                    output += chunk
                }
                return ToolResult(status: status, output: String(decoding: output, as: UTF8.self))
            }
            if monotonicNow() > deadline {
                child.signal(SIGKILL, group: true)
                _ = await child.wait(timeout: 5)
                return ToolResult(status: -2, output: String(decoding: output, as: UTF8.self) + "\n[timed out after \(timeout) s]")
            }
        }
    }

    /// Runs a bash script (`set -e` is NOT implied).
    func shell(_ script: String, timeout: Double = 20) async throws -> ToolResult {
        try await run(["/bin/bash", "-c", script], timeout: timeout)
    }

    /// Runs a bash script and throws unless it exits 0.
    @discardableResult
    func must(_ script: String, timeout: Double = 20) async throws -> ToolResult {
        let result = try await shell(script, timeout: timeout)
        guard result.succeeded else { throw HarnessError("command failed: \(script)\n\(result)") }
        return result
    }
}

/// Quotes a string for bash.
func shellQuote(_ s: String) -> String {
    "'" + s.replacing("'", with: "'\\''") + "'"
}
