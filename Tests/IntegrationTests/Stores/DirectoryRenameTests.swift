import BooksTestSupport
import Glibc
import Testing

/// A watched directory renamed away while booksd runs, and a directory (the same one, a new one,
/// an empty one filled again, or a symlink) coming back at its path: the folder of `--dir`, and
/// the directory of a plain `--file`. After each, booksd is alive, a hand edit in the directory now
/// at the path reaches a subscriber, and a client write is served. (libinotifytools crashed on
/// re-adding a watch for a path still in its tables.)
@Suite("Directory renamed away and back", .timeLimit(.minutes(4))) struct DirectoryRenameTests {
    /// How one variant moves `NAME` (in the test's root) away and puts a directory back.
    struct Variant: Sendable {
        let label: String
        let script: @Sendable (String) -> String
    }

    /// `cp -a FROM TO`, again (up to 10 times, TO emptied first) when a file vanished under it:
    /// the directory holds the store's history (`.a.txt.history/`), whose snapshots booksd writes
    /// through temporary files and renames at any time, as a deploy script copying a live folder
    /// would meet them too.
    /// `into`: TO is an existing (new, empty) directory that receives FROM's entries.
    static func copy(_ from: String, _ to: String, into: Bool = false) -> String {
        let copy = into ? "cp -a \(from)/. \(to)/" : "cp -a \(from) \(to)"
        let clear = into ? "find \(to) -mindepth 1 -delete" : "rm -rf \(to)"
        return "(n=0; until \(copy); do n=$((n+1)); [ $n -lt 10 ] || exit 1; \(clear); sleep 0.2; done)"
    }

    static let variants: [Variant] = [
        Variant(label: "away and back") { "mv \($0) \($0).x && mv \($0).x \($0)" },
        Variant(label: "away, a pause, back") { "mv \($0) \($0).x && sleep 1.5 && mv \($0).x \($0)" },
        Variant(label: "a deploy's swap") {
            copy($0, "\($0).new") + " && mv \($0) \($0).old && mv \($0).new \($0) && rm -rf \($0).old"
        },
        Variant(label: "away, then mkdir") {
            "mv \($0) \($0).gone && mkdir \($0) && " + copy("\($0).gone", $0, into: true) + " && rm -rf \($0).gone"
        },
        Variant(label: "away, a pause, then mkdir") {
            "mv \($0) \($0).gone && sleep 1.5 && mkdir \($0) && " + copy("\($0).gone", $0, into: true)
                + " && rm -rf \($0).gone"
        },
        // Last: the path stays a symlink.
        Variant(label: "away, then a symlink") { "mv \($0) \($0).real && ln -s \($0).real \($0)" },
    ]

    /// Books of `store` as listed by booksctl (nil when the command fails).
    func listed(_ h: DaemonHarness, store: String) async -> Set<String>? {
        guard let result = try? await h.ctl(["--store", store, "list"]), result.succeeded else { return nil }
        return Set(result.output.split(separator: "\n").map(String.init))
    }

    /// Runs every variant on `name` (relative to the root); `file` is the book file of `store`
    /// inside it. After each: booksd alive, a hand edit and a client write reach a new subscriber.
    func runVariants(_ h: DaemonHarness, name: String, store: String, file: String) async throws {
        for (index, variant) in Self.variants.enumerated() {
            try await h.tools.must("cd \(h.root) && " + variant.script(name))
            let what = "\(variant.label) (\(name))"
            #expect(h.daemon?.isRunning == true, "booksd died: \(what)\n\(h.daemonLog())")
            guard h.daemon?.isRunning == true else { return }
            let expected = parseBooks(TestFiles.readText(file) ?? "").count
            let served = await eventually(timeout: 15, interval: 0.1) {
                await listed(h, store: store)?.count == expected
            }
            #expect(served, "store \(store) not served after \(what)\n\(h.daemonLog())")
            let sub = try await h.subscribe(initialCount: expected, store: store)
            let row = TestBook(id: "\(500 + index)", name: "Hand \(index)", author: "Editor")
            // Seen whether it lands before or after the watch on the new directory is back.
            try await h.tools.must("printf '\(row.id)|\(row.name)|\(row.author)\\n' >> \(file)")
            await sub.expectEvents([.insert(row).in(store)], timeout: 15, what)
            let added = try await h.ctl(["--store", store, "add", "Client \(index)", "Writer"])
            #expect(added.succeeded, "client write after \(what): \(added)")
            await sub.expectEvents(
                [.insertNew(name: "Client \(index)", author: "Writer", source: "client").in(store)], what)
            #expect(TestFiles.readText(file)?.contains("|Client \(index)|Writer") == true, "\(what)")
            sub.stop()
        }
    }

    @Test("the folder of --dir renamed away and back, swapped, re-made, replaced by a symlink")
    func watchedFolder() async throws {
        let h = try await DaemonHarness("rename-dir", confirmationMs: 200, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        try TestFiles.write("9|Ulysses|James Joyce\n", to: lists + "/a.txt")
        h.extraDaemonArguments = ["--dir", lists, "--set", "allow_symlink=yes"]
        try await h.startDaemon()
        try await runVariants(h, name: "lists", store: "a", file: lists + "/a.txt")
    }

    @Test("the directory of a plain --file renamed away and back, swapped, re-made, replaced by a symlink")
    func bookFileDirectory() async throws {
        let h = try await DaemonHarness("rename-file", confirmationMs: 200, start: false, socketOutside: true)
        defer { h.shutdown() }
        h.extraDaemonArguments = ["--set", "allow_symlink=yes"]
        try await h.startDaemon()
        try await runVariants(h, name: "data", store: "default", file: h.file)
    }
}
