import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// Resource limits of the watched folder (`--dir`) against a hostile local user: sparse and
/// binary files are refused without being read, and the number of stores is capped so clients
/// always get a descriptor.
@Suite("Store limits", .serialized, .timeLimit(.minutes(3))) struct StoreLimitsTests {
    /// A daemon on `books.txt` and the folder `lists/` holding `a.txt` (one book).
    func harness(_ name: String, extra: [String] = []) async throws -> DaemonHarness {
        let h = try await DaemonHarness(name, confirmationMs: 200, start: false)
        let lists = h.directory.makeDirectory("lists")
        try TestFiles.write("9|Ulysses|James Joyce\n", to: lists + "/a.txt")
        h.extraDaemonArguments = ["--dir", lists] + extra
        try await h.startDaemon()
        return h
    }

    /// `booksctl stores --json`, one row per store.
    func stores(_ h: DaemonHarness) async throws -> [String: StoreProblemRow] {
        let listed = try await h.ctl(["stores", "--json"])
        guard listed.succeeded else { return [:] }
        let rows = listed.output.split(separator: "\n").compactMap { line in
            try? JSONDecoder().decode(StoreProblemRow.self, from: Data(line.utf8))
        }
        return Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Bytes the files under `path` occupy on disk (`st_blocks`), recursively.
    static func diskBytes(_ path: String) -> Int {
        var total = 0
        for name in TestFiles.names(in: path) {
            var info = stat()
            guard lstat(path + "/" + name, &info) == 0 else { continue }
            total += Int(info.st_blocks) * 512
            if info.st_mode & S_IFMT == S_IFDIR { total += diskBytes(path + "/" + name) }
        }
        return total
    }

    @Test("sparse and NUL-filled files in the folder are refused unread; memory stays small; the others serve")
    func sparseFilesAreRefused() async throws {
        let h = try await harness("limits-sparse")
        defer { h.shutdown() }
        let lists = h.root + "/lists"
        let planted = (0..<7).map { "s\($0)" }
        for name in planted {
            try TestFiles.write("", to: lists + "/\(name).txt")
            #expect(truncate(lists + "/\(name).txt", 128 << 20) == 0)
        }
        // Text first, then a hole; and a small dense file of NUL bytes.
        try TestFiles.write("1|A|B\n", to: lists + "/t.txt")
        #expect(truncate(lists + "/t.txt", 128 << 20) == 0)
        try TestFiles.write([UInt8](repeating: 0, count: 64 << 10), to: lists + "/z.txt")
        let refused = planted + ["t", "z"]
        var rows: [String: StoreProblemRow] = [:]
        let seen = await eventually(timeout: 30, interval: 0.1) {
            rows = (try? await stores(h)) ?? [:]
            return refused.allSatisfy { rows[$0]?.state == "unavailable" }
        }
        #expect(seen, "\(rows)\n\(h.daemonLog(lastLines: 80))")
        #expect(rows["s0"]?.problem?.contains("sparse file") == true, "\(rows["s0"].map { "\($0)" } ?? "none")")
        #expect(rows["t"]?.problem?.contains("sparse file") == true, "\(rows["t"].map { "\($0)" } ?? "none")")
        #expect(rows["z"]?.problem?.contains("NUL bytes") == true, "\(rows["z"].map { "\($0)" } ?? "none")")
        #expect(refused.allSatisfy { rows[$0]?.bookCount == 0 })
        let hwm = Rel.memory(pid: h.daemon?.pid ?? 0).hwm
        print("[limits] sparse files: booksd VmHWM \(hwm) KiB; folder on disk \(Self.diskBytes(lists)) bytes")
        #expect(hwm > 0 && hwm < 100 << 10, "booksd VmHWM \(hwm) KiB after 8 sparse files of 128 MiB")
        // No snapshot of them: the folder (histories included) holds almost nothing.
        #expect(Self.diskBytes(lists) < 4 << 20, "the folder takes \(Self.diskBytes(lists)) bytes on disk")
        // Logged once each.
        let log = TestFiles.readText(h.daemonLogPath) ?? ""
        #expect(Rel.count("s0.txt: it is a sparse file", in: log) == 1, "\(h.daemonLog(lastLines: 80))")

        // The others serve, and a refused file that becomes a book list is picked up.
        try await h.tools.must("printf '10|Dubliners|James Joyce\\n' >> ../lists/a.txt")
        let a = try await h.ctl(["list", "--json", "-s", "a"])
        #expect(a.succeeded && a.output.contains("Ulysses"), "\(a)")
        try TestFiles.replace(Array("5|Kim|Rudyard Kipling\n".utf8), at: lists + "/s0.txt")
        let picked = await eventually(timeout: 10, interval: 0.1) {
            (try? await stores(h))?["s0"].map { $0.state == "present" && $0.bookCount == 1 } ?? false
        }
        #expect(picked, "\(h.daemonLog(lastLines: 40))")
    }

    /// Open descriptors of the daemon.
    static func descriptors(_ h: DaemonHarness) -> Int { TestFiles.names(in: "/proc/\(h.daemon?.pid ?? 0)/fd").count }

    @Test(
        "many files under a low RLIMIT_NOFILE: stores are capped (logged), clients still connect, removed stores free their descriptors"
    )
    func descriptorsAreKeptForClients() async throws {
        guard access("/usr/bin/prlimit", X_OK) == 0 else {
            print("skipped descriptorsAreKeptForClients: needs /usr/bin/prlimit")
            return
        }
        let h = try await DaemonHarness("limits-fds", confirmationMs: 200, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        for n in 0..<300 { try TestFiles.write("\(n)|Book \(n)|Author\n", to: lists + "/f\(1000 + n).txt") }
        h.extraDaemonArguments = ["--dir", lists]
        h.wrapper = ["/usr/bin/prlimit", "--nofile=256:256", "--"]
        try await h.startDaemon()
        // 256 descriptors: 128 kept for clients, 64 for the daemon, 2 per store: 32 stores.
        var rows: [String: StoreProblemRow] = [:]
        #expect(
            await eventually(timeout: 20, interval: 0.1) {
                rows = (try? await stores(h)) ?? [:]
                return rows.count == 32
            }, "\(rows.count) stores\n\(h.daemonLog(lastLines: 40))")
        let log = TestFiles.readText(h.daemonLogPath) ?? ""
        #expect(log.contains("RLIMIT_NOFILE 256 leaves descriptors for 32 stores"), "\(h.daemonLog(lastLines: 40))")
        // Clients still connect, many at once.
        var clients: [LineClient] = []
        defer { for c in clients { c.close() } }
        for _ in 0..<60 {
            guard let c = try? LineClient(path: h.socket) else { break }
            clients.append(c)
        }
        #expect(clients.count == 60)
        var answered = 0
        for c in clients {
            guard c.sendRaw(Array("{\"id\":\"h\",\"op\":\"hello\",\"version\":2}\n".utf8), timeout: 5),
                let line = c.readLineBytes(timeout: 10), String(decoding: line, as: UTF8.self).contains("\"ok\":true")
            else { break }  // one unanswered client is enough: do not wait for each
            answered += 1
        }
        #expect(answered == 60, "\(answered) of 60 clients were answered")
        for c in clients { c.close() }
        clients.removeAll()
        // Removing served stores' files frees their descriptors.
        let served = rows.keys.filter { $0 != "default" }.sorted().prefix(10)
        let before = Self.descriptors(h)
        for name in served { #expect(unlink(lists + "/\(name).txt") == 0) }
        let removed = await eventually(timeout: 15, interval: 0.1) {
            let now = (try? await stores(h)) ?? [:]
            return served.allSatisfy { now[$0] == nil }
        }
        #expect(removed, "\(h.daemonLog(lastLines: 40))")
        var after = before
        #expect(
            await eventually(timeout: 10, interval: 0.1) {
                after = Self.descriptors(h)
                return after <= before - 2 * served.count
            }, "descriptors \(before) before removing \(served.count) stores, \(after) after")
        print("[limits] descriptors: \(before) with 32 stores, \(after) after removing \(served.count)")
    }

    @Test("an unknown-store error lists 20 names, the nearest first; a client that reads none of its errors is cut off")
    func storeErrorsAreBounded() async throws {
        let h = try await DaemonHarness("limits-errors", confirmationMs: 200, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        for n in 0..<300 { try TestFiles.write("\(n)|Book \(n)|Author\n", to: lists + "/store\(1000 + n).txt") }
        // Error replies may take an eighth of client_queue_bytes unread: 128 KiB here.
        h.extraDaemonArguments = ["--dir", lists, "--set", "client_queue_bytes=1M"]
        try await h.startDaemon()
        let hello = Array("{\"id\":\"h\",\"op\":\"hello\",\"version\":2}\n".utf8)
        let probe = try LineClient(path: h.socket)
        defer { probe.close() }
        #expect(probe.sendRaw(hello) && probe.readLineBytes(timeout: 10) != nil)
        #expect(probe.sendRaw("{\"id\":\"g\",\"op\":\"get\",\"store\":\"store1150x\",\"ids\":[\"1\"]}\n"))
        let line = try #require(probe.readLineBytes(timeout: 10))
        let reply = try JSONDecoder().decode(UnknownStoreReply.self, from: Data(line))
        #expect(line.count < 2048, "\(line.count) bytes: \(String(decoding: line, as: UTF8.self))")
        #expect(reply.error.code == "unknown-store")
        #expect(reply.error.stores.count == 20 && reply.error.stores.contains("store1150"), "\(reply.error.stores)")
        #expect(reply.error.message.contains("and 281 more"), "\(reply.error.message)")
        // booksctl names the nearest stores too.
        let ctl = try await h.ctl(["--store", "store1150x", "list"])
        #expect(ctl.status == 2 && ctl.output.contains("store1150"), "\(ctl)")

        // A client that sends failing requests and reads none of the errors is cut off; booksd's
        // memory stays bounded.
        let start = Rel.memory(pid: h.daemon?.pid ?? 0).rss
        let request = Array("{\"id\":\"x\",\"op\":\"ping\",\"store\":\"nope\"}\n".utf8)
        let batch = Array([[UInt8]](repeating: request, count: 500).joined())
        do {
            let c = try LineClient(path: h.socket)
            defer { c.close() }
            #expect(c.sendRaw(hello) && c.readLineBytes(timeout: 10) != nil)
            // Keeps sending, never reads, until booksd hangs up (POLLHUP) or 30 s passed.
            var sent = 0
            var hungUp = false
            let deadline = MonotonicClock.seconds() + 30
            while !hungUp, MonotonicClock.seconds() < deadline {
                if c.sendRaw(batch, timeout: 0.2) { sent += 500 }
                var pfd = pollfd(fd: c.fd, events: 0, revents: 0)
                hungUp = poll(&pfd, 1, 0) == 1 && pfd.revents & Int16(POLLHUP) != 0
            }
            #expect(hungUp, "a client that read none of \(sent) errors was not cut off")
        }
        let grown = Rel.memory(pid: h.daemon?.pid ?? 0).rss - start
        print("[limits] store errors: one unknown-store error \(line.count) bytes; VmRSS grew \(grown) KiB")
        #expect(grown < 64 << 10, "booksd grew by \(grown) KiB")
        #expect(h.daemon?.isRunning == true)
    }
}

/// A row of `booksctl stores --json` with its problem.
struct StoreProblemRow: Decodable, CustomStringConvertible {
    let name: String
    let state: String
    let problem: String?
    let bookCount: Int

    var description: String { "\(name): \(state) \(bookCount) books \(problem ?? "")" }
}

/// An error reply as the tests read it.
struct UnknownStoreReply: Decodable {
    struct Failure: Decodable {
        let code: String
        let message: String
        let stores: [String]
    }
    let error: Failure
}
