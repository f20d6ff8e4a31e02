import Glibc

/// Runs a program with `posix_spawnp` and captures its standard output (stderr is inherited).
enum ChildProcess {
    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    static func run(_ arguments: [String]) -> Result {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { return Result(status: -1, output: "") }
        // The child gets the write end as fd 1 only; neither end leaks into later children.
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)

        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        close(pipeFDs[1])
        guard spawned == 0 else {
            close(pipeFDs[0])
            Console.error("spawn \(arguments[0]) failed: \(String(cString: strerror(spawned)))")
            return Result(status: -1, output: "")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            output.append(contentsOf: chunk[0..<n])
        }
        close(pipeFDs[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitCode, output: String(decoding: output, as: UTF8.self))
    }

    /// `key=value` lines of a child's output, as numbers.
    static func values(_ output: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { result[String(parts[0])] = value }
        }
        return result
    }

    /// The path of the running executable.
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
