// Support for the fault suite (docs/RELIABILITY.md). It runs the real `booksd` from the package
// build directory (the shared `DaemonProcess`) and talks the wire protocol over raw sockets
// (`RequestClient` on the shared `LineClient`), so the tests see exactly what any client sees.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

// MARK: Environment

enum Rel {
    /// An integer knob from the environment (long variants of the suite).
    static func knob(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    static var isRoot: Bool { geteuid() == 0 }

    /// Writes a file the way an editor that saves in place does (same inode, O_TRUNC).
    static func writeInPlace(_ path: String, _ bytes: [UInt8]) {
        do { try TestFiles.write(bytes, to: path) } catch { preconditionFailure("\(error)") }
    }

    /// Writes a file the way `sed -i` / vim / most tools do: a new file renamed over the old one.
    static func writeRenameOver(_ path: String, _ bytes: [UInt8]) {
        do { try TestFiles.replace(bytes, at: path) } catch { preconditionFailure("\(error)") }
    }

    /// Runs `argv` (output discarded); its exit status, -1 when it cannot start.
    static func run(_ argv: [String]) -> Int32 {
        (try? ChildProcess.runBlocking(argv, timeout: 120))?.status ?? -1
    }

    /// Whether `a` and `b` are the same bytes (`memcmp`: fast enough for 100 MiB in a debug build).
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// The first offset where `a` and `b` differ (the shorter one's length when one is a prefix of
    /// the other), nil when they are equal. For failure messages.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        if sameBytes(a, b) { return nil }
        let common = min(a.count, b.count)
        var low = 0
        var high = common  // a[..<low] == b[..<low]; bisect with memcmp
        while low < high {
            let mid = (low + high + 1) / 2
            let equal = a.withUnsafeBytes { x in
                b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, mid) == 0 }
            }
            if equal { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// How many times `needle` occurs in `text` (log lines, for instance).
    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// VmRSS / VmHWM (KiB) of a process.
    static func memory(pid: pid_t) -> (rss: Int, hwm: Int) {
        guard let text = TestFiles.readText("/proc/\(pid)/status") else { return (0, 0) }
        var rss = 0
        var hwm = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.first == "VmRSS:", parts.count > 1 { rss = Int(parts[1]) ?? 0 }
            if parts.first == "VmHWM:", parts.count > 1 { hwm = Int(parts[1]) ?? 0 }
        }
        return (rss, hwm)
    }
}

// MARK: Daemon

extension DaemonProcess {
    /// Starts booksd on `file` (stdout and stderr to `log`, a minimal environment) and, with
    /// `waitReady`, waits until it answers `hello` (or throws with the end of its log).
    convenience init(
        file: String, socket: String, log: String, extra: [String] = [], prefix: [String] = [],
        logLevel: String = "debug", waitReady: Bool = true
    ) throws {
        var options = DaemonOptions(file: file, socket: socket, logPath: log)
        options.logLevel = logLevel
        options.extraArguments = extra
        options.wrapper = prefix
        options.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        try self.init(options, waitReady: waitReady, readyTimeout: 20)
    }

    /// VmRSS / VmHWM (KiB).
    var memory: (rss: Int, hwm: Int) { Rel.memory(pid: pid) }
}

// MARK: Book file helpers

enum BookFile {
    /// Parses bytes as `books.txt`.
    static func parse(_ bytes: [UInt8]) -> BookDocument { BookDocument(parsing: bytes) }

    static func books(_ bytes: [UInt8]) -> [String: Book] {
        Dictionary(parse(bytes).books.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func render(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    /// Comment and bad lines every fault test seeds the file with (they must survive everything).
    static let preservedLines = [
        "# BookSync reliability suite: this comment must survive",
        "this line has no separator and is bad",
        "#   indented comment | with a pipe",
        "too|many|fields|here|really",
    ]
}

extension Array where Element == Book {
    var byID: [String: Book] { Dictionary(map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
}

/// The parent of every fault-suite test: serialized, so the suites never run at the same time
/// (the latency and memory figures, and the kill timing, assume a daemon that is not competing
/// with another suite's daemon for the CPU).
@Suite(.serialized) enum ReliabilitySuite {}
