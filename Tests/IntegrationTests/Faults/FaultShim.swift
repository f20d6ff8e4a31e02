// The I/O-fault library (Tests/FaultInjection/booksfault.c) as the tests use it: compiled once
// per source version with the toolchain's clang (or `cc`) into `.build/booksfault/`, preloaded
// into booksd, armed at run time through its control file, and its call log read back.
import BooksTestSupport
import Foundation
import Glibc

/// The preloaded fault library and one daemon's control and log files.
struct FaultShim {
    /// The call groups the library counts (docs/RELIABILITY.md, I/O faults).
    enum Group: String, CaseIterable {
        case open, read, write, pwrite, fsync, fdatasync, rename, ftruncate, close
    }

    /// What a failing call does.
    enum Kind: String, CaseIterable {
        case eio = "EIO"
        case enospc = "ENOSPC"
        case eintr = "EINTR"
        case short = "SHORT"

        /// The kinds that apply to a group (a short transfer only to read, write and pwrite).
        static func kinds(for group: Group) -> [Kind] {
            switch group {
            case .read, .write, .pwrite: return allCases
            default: return [.eio, .enospc, .eintr]
            }
        }

        /// Whether the daemon must hide the fault completely (retry an interrupted call, finish a
        /// short transfer): the operation then succeeds.
        var isTransparent: Bool { self == .eintr || self == .short }
    }

    /// The directory whose files count (the book file's directory).
    let bookDirectory: String
    /// The control file (outside `bookDirectory`).
    let controlPath: String
    /// The call log (outside `bookDirectory`).
    let logPath: String

    /// The environment entries that preload the library into a daemon.
    var environment: [String: String] {
        [
            "LD_PRELOAD": Self.library, "BOOKSFAULT_DIR": bookDirectory, "BOOKSFAULT_CONTROL": controlPath,
            "BOOKSFAULT_LOG": logPath,
        ]
    }

    /// Counts calls from now on without failing any; calls on the thread named `skipping` (e.g.
    /// `booksd-events`, the watcher's events), or on any other than `onlyOn`, are left out.
    func count(skipping thread: String? = nil, onlyOn only: String? = nil) {
        setControl("count" + Self.filter(thread, only))
    }

    /// Fails the `n`-th call of `group` from now on (once) with `kind`, not counting calls on the
    /// thread named `skipping`.
    func fail(_ group: Group, _ kind: Kind, at n: Int, skipping thread: String? = nil, onlyOn only: String? = nil) {
        fail([FaultCase(group: group, kind: kind, n: n)], skipping: thread, onlyOn: only)
    }

    /// Arms several faults at once (each fires once; the calls are counted from now on), e.g. a
    /// second one in the clean-up after the first.
    func fail(_ faults: [FaultCase], skipping thread: String? = nil, onlyOn only: String? = nil) {
        let specs = faults.map { "fail \($0.group.rawValue) \($0.kind.rawValue) \($0.n)" }
        setControl(specs.joined(separator: " ; ") + Self.filter(thread, only))
    }

    private static func filter(_ skipped: String?, _ only: String?) -> String {
        (skipped.map { " notthread=\($0)" } ?? "") + (only.map { " thread=\($0)" } ?? "")
    }

    /// Stops counting and failing.
    func off() { setControl("off") }

    /// Replaces the control file; a generation number makes every setting a new text, which is
    /// what the library compares (it re-reads the file at every counted call).
    private func setControl(_ text: String) {
        let generation = UInt64(MonotonicClock.seconds() * 1e9)
        do { try TestFiles.replace(Array("\(text) \(generation)\n".utf8), at: controlPath) } catch {
            preconditionFailure("cannot write \(controlPath): \(error)")
        }
    }

    /// The log's size now (pass it to `entries(since:)`).
    var logOffset: Int { TestFiles.readBytes(logPath)?.count ?? 0 }

    /// The log lines written since `offset`.
    func entries(since offset: Int) -> [String] {
        let bytes = TestFiles.readBytes(logPath) ?? []
        guard offset < bytes.count else { return [] }
        return String(decoding: bytes[offset...], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// How many calls of each group the log shows since `offset` (a counting run).
    func counts(since offset: Int) -> [Group: Int] {
        var counts: [Group: Int] = [:]
        for line in entries(since: offset) {
            guard let first = line.split(separator: " ").first, let group = Group(rawValue: String(first)) else {
                continue
            }
            counts[group, default: 0] += 1
        }
        return counts
    }

    /// The fault the library injected since `offset` ("FAULT group kind n function path"), if any.
    func injected(since offset: Int) -> String? { entries(since: offset).first { $0.hasPrefix("FAULT ") } }

    /// Every fault injected since `offset`.
    func allInjected(since offset: Int) -> [String] { entries(since: offset).filter { $0.hasPrefix("FAULT ") } }

    // MARK: The library

    /// The compiled library (built at first use; a build failure stops the test run with the
    /// compiler's output).
    static let library: String = {
        do { return try build() } catch { preconditionFailure("cannot build the fault library: \(error)") }
    }()

    /// The C source, beside this test target.
    static var source: String { BuildProducts.packageRoot + "/Tests/FaultInjection/booksfault.c" }

    /// Compiles `source` into `.build/booksfault/booksfault-<hash of the source>.so` unless that
    /// exists (written to a temporary name and renamed, so concurrent runs never see half a file).
    static func build() throws -> String {
        guard let code = TestFiles.readBytes(source) else { throw TestSupportError("cannot read \(source)") }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in code { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let directory = BuildProducts.packageRoot + "/.build/booksfault"
        let output = directory + "/booksfault-\(String(hash, radix: 16)).so"
        if TestFiles.exists(output) { return output }
        mkdir(BuildProducts.packageRoot + "/.build", 0o755)
        mkdir(directory, 0o755)
        let partial = output + ".\(getpid()).tmp"
        // The toolchain's clang (beside `swift`), else any C compiler on the PATH.
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = ["/opt/swift/usr/bin"] + path.split(separator: ":").map(String.init)
        let compiler = ["clang", "cc", "gcc"].lazy.flatMap { name in directories.map { $0 + "/" + name } }
            .first(where: TestFiles.isExecutable)
        guard let compiler else { throw TestSupportError("no C compiler (clang, cc, gcc) found") }
        let result = try ChildProcess.runBlocking(
            [compiler, "-shared", "-fPIC", "-O1", "-Wall", "-o", partial, source, "-ldl", "-lpthread"], timeout: 120)
        guard result.succeeded, rename(partial, output) == 0 else {
            unlink(partial)
            throw TestSupportError("\(compiler) failed on \(source): \(result)")
        }
        return output
    }
}
