import BooksTestSupport
import Glibc
import Testing

/// Several stores in one booksd: `--store`, `--file` as `default`, the
/// watched folder (`--dir`), refusals, and the single shared inotify instance. With protocol
/// version 1 only the `default` store reaches subscribers; the other stores are observed through
/// the daemon's log (each line names its store). (Protocol version 2 across stores:
/// `StoresProtocolTests`.)
@Suite("Stores", .timeLimit(.minutes(3))) struct StoresTests {
    /// A daemon on `books.txt` (the store `default`), `fiction.txt` (`--store fiction`) and the
    /// folder `lists/` (holding `a.txt`).
    func harness(_ name: String, extra: [String] = []) async throws -> DaemonHarness {
        let h = try await DaemonHarness(name, confirmationMs: 300, start: false)
        try TestFiles.write("7|Emma|Jane Austen\n", to: h.dir + "/fiction.txt")
        let lists = h.directory.makeDirectory("lists")
        try TestFiles.write("9|Ulysses|James Joyce\n", to: lists + "/a.txt")
        h.extraDaemonArguments = ["--store", "fiction=\(h.dir)/fiction.txt", "--dir", lists] + extra
        try await h.startDaemon()
        return h
    }

    func waitForLog(_ h: DaemonHarness, _ fragment: String, timeout: Double = 10) async -> Bool {
        await eventually(timeout: timeout, interval: 0.05) { h.daemonLog(lastLines: 400).contains(fragment) }
    }

    /// Lines of `/proc/PID/fdinfo` of the daemon's inotify descriptors that are watches.
    func inotifyWatches(_ h: DaemonHarness) -> Int {
        guard let pid = h.daemon?.pid else { return -1 }
        var count = 0
        for name in TestFiles.names(in: "/proc/\(pid)/fd") {
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard n > 0,
                String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("inotify")
            else { continue }
            let info = TestFiles.readText("/proc/\(pid)/fdinfo/\(name)") ?? ""
            count += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }

    @Test("three stores: edits with real editors in each are applied; one inotify watch per directory")
    func editsInEachStore() async throws {
        let h = try await harness("stores-edits")
        defer { h.shutdown() }
        #expect(await waitForLog(h, "booksd ready: 3 store(s)"))
        // data/ (books.txt, fiction.txt) and lists/ (a.txt), plus the hub's wake-up pipe.
        #expect(inotifyWatches(h) == 3)
        let sub = try await h.subscribe(store: "default")
        try await h.tools.must("vim -Es -c '%s/Frank Herbert/Frank HERBERT/' -c wq books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        #expect(await waitForLog(h, "1 updated, 0 deleted books_file=\(h.dir)/fiction.txt"))
        try await h.tools.must("printf '10|Dubliners|James Joyce\\n' >> ../lists/a.txt")
        #expect(await waitForLog(h, "1 inserted, 0 updated, 0 deleted books_file=\(h.root)/lists/a.txt"))
        // The default store's subscriber saw nothing of the others.
        await sub.expectNoMoreEvents(within: 0.5)
    }

    @Test("watched folder: create, mv in, mv out, rm add and remove stores; editor files never do")
    func folderAddsAndRemoves() async throws {
        let h = try await harness("stores-folder")
        defer { h.shutdown() }
        let lists = h.root + "/lists"
        try TestFiles.write("1|A|B\n", to: lists + "/b.txt")
        #expect(await waitForLog(h, "books_store=b"))
        try await h.tools.must(
            "printf '[{\"id\":\"2\",\"name\":\"C\",\"author\":\"D\"}]' > ../c.json && mv ../c.json ../lists/")
        #expect(await waitForLog(h, "books_store=c"))
        for noise in [".b.txt.swp", "b.txt~", "4913", "#b.txt#", ".b.txt.XyZ123", "sedAb12Cd"] {
            try TestFiles.write("x\n", to: lists + "/" + noise)
        }
        try await h.tools.must("mv ../lists/b.txt ../b-away.txt")
        #expect(await waitForLog(h, "store 'b' removed"))
        try await h.tools.must("rm ../lists/c.json")
        #expect(await waitForLog(h, "store 'c' removed"))
        try await Task.sleep(for: .milliseconds(600))
        let log = h.daemonLog(lastLines: 400)
        for noise in ["swp", "b.txt~", "4913", "#b.txt#", "XyZ123", "sedAb12Cd"] {
            #expect(!log.contains("books_store=\(noise)") && !log.contains("'\(noise)'"), "\(noise)")
        }
        // The other stores still serve: an edit of the default store reaches a subscriber.
        let sub = try await h.subscribe(store: "default")
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
    }

    @Test("a store on the same file (through a symlink) is refused with a clear line; the others serve")
    func sameFileIsRefused() async throws {
        let h = try await DaemonHarness("stores-same", start: false)
        defer { h.shutdown() }
        #expect(symlink(h.file, h.dir + "/alias.txt") == 0)
        h.extraDaemonArguments = ["--store", "alias=\(h.dir)/alias.txt", "--set", "allow_symlink=yes"]
        try await h.startDaemon()
        #expect(await waitForLog(h, "store 'alias' (\(h.dir)/alias.txt) is the same file as store 'default'"))
        let sub = try await h.subscribe(store: "default")
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
    }
}

/// The watched folder without inotify, and many files at once.
@Suite("Stores folder load", .timeLimit(.minutes(3))) struct StoresFolderLoadTests {
    @Test("with polling forced, the folder is listed every poll interval: files come and go")
    func pollingFolder() async throws {
        let h = try await DaemonHarness("stores-poll", confirmationMs: 200, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        h.extraDaemonArguments = ["--dir", lists, "--force-polling", "--set", "poll_interval_ms=50"]
        try await h.startDaemon()
        try TestFiles.write("1|A|B\n", to: lists + "/p.txt")
        #expect(await eventually(timeout: 10, interval: 0.05) { h.daemonLog(lastLines: 200).contains("books_store=p") })
        #expect(unlink(lists + "/p.txt") == 0)
        #expect(
            await eventually(timeout: 10, interval: 0.05) { h.daemonLog(lastLines: 200).contains("store 'p' removed") })
    }

    @Test("1,000 files dropped into the folder at once are added in logged steps; the default store keeps serving")
    func manyFilesAtOnce() async throws {
        let h = try await DaemonHarness("stores-many", confirmationMs: 200, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        h.extraDaemonArguments = ["--dir", lists, "--set", "state_directory=none"]
        try await h.startDaemon()
        let sub = try await h.subscribe(store: "default")
        let staging = h.directory.makeDirectory("staging")
        for index in 0..<1_000 {
            try TestFiles.write("\(index)|Book \(index)|Author\n", to: "\(staging)/m\(index).txt")
        }
        try await h.tools.must("mv \(staging)/*.txt \(lists)/")
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)], "an edit of the default store while the folder fills")
        #expect(
            await eventually(timeout: 60, interval: 0.2) {
                let loaded = h.daemonLog(lastLines: 100_000).split(separator: "\n").filter {
                    $0.contains("loaded 1 book,") && $0.contains(" books_store=m")
                }
                return Set(loaded).count == 1_000
            })
        // Bounded steps: each "N store(s) added" line of the folder adds at most 64.
        let steps = h.daemonLog(lastLines: 100_000).split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: ": "), line.hasSuffix("store(s) added") else { return nil }
            return Int(line[range.upperBound...].split(separator: " ").last(where: { Int($0) != nil }) ?? "")
        }
        #expect(steps.reduce(0, +) == 1_000, "\(steps)")
        #expect(steps.count >= 1_000 / 64 && steps.allSatisfy { $0 <= 64 }, "\(steps)")
    }
}

extension StoresTests {
    @Test("a folder file named like a configured store is refused, and its removal leaves that store alone")
    func folderNeverRemovesAConfiguredStore() async throws {
        let h = try await harness("stores-clash")
        defer { h.shutdown() }
        // lists/fiction.txt clashes with --store fiction (data/fiction.txt).
        try TestFiles.write("5|Clash|Author\n", to: h.root + "/lists/fiction.txt")
        #expect(await waitForLog(h, "a store named 'fiction' already exists"))
        #expect(unlink(h.root + "/lists/fiction.txt") == 0)
        try await Task.sleep(for: .milliseconds(900))
        #expect(!h.daemonLog(lastLines: 400).contains("store 'fiction' removed"))
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        #expect(await waitForLog(h, "1 updated, 0 deleted books_file=\(h.dir)/fiction.txt"))
    }
}

extension StoresTests {
    @Test("bad stores (a FIFO, a JSON file that is not a book list, a missing folder file) leave the default serving")
    func badStoresDoNotDisturbTheOthers() async throws {
        let h = try await DaemonHarness("stores-bad", start: false)
        defer { h.shutdown() }
        #expect(mkfifo(h.dir + "/pipe.txt", 0o644) == 0)
        try TestFiles.write("{\"not\": \"a list\"}\n", to: h.dir + "/odd.json")
        h.extraDaemonArguments = [
            "--store", "pipe=\(h.dir)/pipe.txt", "--store", "odd=\(h.dir)/odd.json",
            "--store", "later=\(h.dir)/later.txt",
        ]
        try await h.startDaemon()
        #expect(await waitForLog(h, "booksd ready: 4 store(s)"))
        let sub = try await h.subscribe(store: "default")
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
        // The missing file is picked up when it appears.
        try TestFiles.write("3|Later|Someone\n", to: h.dir + "/later.txt")
        #expect(await waitForLog(h, "1 inserted, 0 updated, 0 deleted books_file=\(h.dir)/later.txt"))
    }

    @Test("each store resumes its own saved history after a restart (state directory: one subfolder per store)")
    func historyPerStoreAcrossRestart() async throws {
        let h = try await DaemonHarness("stores-restart", start: false)
        defer { h.shutdown() }
        let state = h.directory.makeDirectory("state", mode: 0o700)
        try TestFiles.write("7|Emma|Jane Austen\n", to: h.dir + "/fiction.txt")
        h.extraDaemonArguments = ["--store", "fiction=\(h.dir)/fiction.txt", "--state-directory", state]
        try await h.startDaemon()
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        #expect(await waitForLog(h, "books_file=\(h.dir)/fiction.txt books_seq=1"))
        #expect(h.daemon?.stop() == 0)
        #expect(TestFiles.names(in: state).sorted() == ["default", "fiction"])
        try await h.tools.must("sed -i s/Emma/EMMA/ fiction.txt")
        try await h.startDaemon()
        #expect(await waitForLog(h, "saved history restored from \(state)/fiction"))
        #expect(await waitForLog(h, "saved history restored from \(state)/default"))
        // The edit made while booksd was down is the fiction store's next change set (seq 2).
        #expect(await waitForLog(h, "books_file=\(h.dir)/fiction.txt books_seq=2"))
    }
}

extension StoresTests {
    @Test("a watched folder that disappears is logged once, the other stores serve, and it is picked up again")
    func folderDisappearsAndComesBack() async throws {
        let h = try await harness("stores-folder-gone")
        defer { h.shutdown() }
        let lists = h.root + "/lists"
        try await h.tools.must("rm -rf \(lists)")
        #expect(await waitForLog(h, "watched folder \(lists) cannot be listed"))
        let sub = try await h.subscribe(store: "default")
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        await sub.expectEvents([.update(Books.duneUpper)])
        #expect(mkdir(lists, 0o755) == 0)
        #expect(await waitForLog(h, "watched folder \(lists) is back"))
        try TestFiles.write("4|Back|Again\n", to: lists + "/back.txt")
        #expect(await waitForLog(h, "books_store=back"))
    }
}
