import Glibc

/// Records the file-system operations a real `booksd` makes in its book directory while a
/// scenario runs (any write path: the scenario is a closure), by running it under
/// `strace -f -y -v -xx`. The I/O shell around `StraceParser` and `TraceInterpreter`.
public struct CrashStateRecorder {
    /// The system calls traced: every call that changes a file or directory, syncs, descriptor
    /// bookkeeping, `stat`s (for real inode numbers) and socket sends (acknowledgements); the
    /// interpreter refuses a recording where a call it does not model (`writev`, `fallocate`, …)
    /// changed a recorded file. Stores into a shared mapping cannot be seen: `mmap` and `msync`
    /// are traced so that an `msync` is a sync of the mapped file (booksd maps the history's
    /// `published` page; `PowerCutTests` models its content).
    public static let tracedCalls = [
        "openat", "open", "creat", "write", "pwrite64", "writev", "ftruncate", "fsync", "fdatasync", "rename",
        "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat", "mkdir", "mkdirat", "fchmod", "fchown",
        "fsetxattr", "fremovexattr", "close", "dup", "dup2", "dup3", "sendto", "sendmsg", "newfstatat", "fstat",
        "statx", "pwritev", "pwritev2", "fallocate", "copy_file_range", "sendfile", "truncate", "mmap", "msync",
    ]

    /// What a recording produced.
    public struct Recording: Sendable {
        /// The directory's content when the daemon started.
        public var initial: DirectoryImage
        /// The operations in the directory, with acknowledgement markers.
        public var recorded: RecordedOperations
    }

    /// Whether `strace` can be run here.
    public static var isAvailable: Bool { TestFiles.isExecutable("/usr/bin/strace") }

    /// Starts `booksd` under strace on `options` (its `file` in `directory`, socket and log
    /// outside it), runs `scenario` with the running daemon, kills the daemon and interprets the
    /// trace. `marker` labels socket sends (the acknowledgements the checks rely on). With
    /// `terminate`, the daemon is stopped with SIGTERM instead (its clean stop is recorded).
    public static func record(
        directory: String, options: DaemonOptions, tracePath: String,
        marker: @escaping ([UInt8]) -> String?, terminate: Bool = false,
        scenario: (DaemonProcess) throws -> Void
    ) throws -> Recording {
        try recordWithEdits(
            directory: directory, options: options, tracePath: tracePath, marker: marker, terminate: terminate
        ) { daemon -> [String: [InjectedEdit]] in
            try scenario(daemon)
            return [:]
        }
    }

    /// `record` of a scenario that also edits the directory itself: it returns its edits, each
    /// under the label of the output marker just before it.
    public static func recordWithEdits(
        directory: String, options: DaemonOptions, tracePath: String,
        marker: @escaping ([UInt8]) -> String?, terminate: Bool = false,
        scenario: (DaemonProcess) throws -> [String: [InjectedEdit]]
    ) throws -> Recording {
        let (initial, identities) = try DirectoryImage.read(directory)
        var options = options
        options.wrapper =
            [
                "/usr/bin/strace", "-f", "-y", "-v", "-xx", "-s", "16777216", "-o", tracePath, "-e",
                "trace=" + tracedCalls.joined(separator: ","),
            ] + options.wrapper
        let daemon = try DaemonProcess(options, waitReady: true, readyTimeout: 30)
        defer { daemon.kill() }
        let injected = try scenario(daemon)
        // A last round trip: the server thread has returned from every earlier send, so strace
        // has their results (a call cut by the kill is printed without one and dropped).
        guard daemon.answersHello() else { throw TestSupportError("booksd stopped answering after the scenario") }
        // Kill (or stop) the daemon (not strace, which then writes out its trace and exits).
        for child in children(of: daemon.pid) { kill(child, terminate ? SIGTERM : SIGKILL) }
        guard daemon.process.waitBlocking(timeout: 20) != nil else {
            throw TestSupportError("booksd under strace did not exit")
        }
        guard let text = TestFiles.readText(tracePath) else { throw TestSupportError("no trace at \(tracePath)") }
        let calls = try StraceParser.calls(in: text)
        var recorded = try TraceInterpreter.operations(
            of: calls, root: directory, initial: initial, umask: 0o022, injected: injected, marker: marker)
        for (inode, identity) in identities where recorded.realIdentities[inode] == nil {
            recorded.realIdentities[inode] = identity
        }
        return Recording(initial: initial, recorded: recorded)
    }

    /// The child processes of `pid` (from `/proc`).
    static func children(of pid: pid_t) -> [pid_t] {
        let text = TestFiles.readText("/proc/\(pid)/task/\(pid)/children") ?? ""
        return text.split(separator: " ").compactMap { pid_t(String($0).trimmingSpaces()) }
    }
}
