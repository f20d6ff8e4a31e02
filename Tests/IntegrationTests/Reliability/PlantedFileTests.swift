// Guarantee 3 (docs/RELIABILITY.md): files another user plants beside a book file in a shared
// sticky folder (mode 1777, like /tmp) under booksd's own names never block a write, never turn
// history off, and are left alone.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Glibc
import Testing

extension ReliabilitySuite {
    @Suite(.serialized)
    struct PlantedFileTests {
        /// booksd's user (uid 1, `daemon`) and the other user who plants the decoys (`nobody`).
        static let daemonUID: uid_t = 1
        static let otherUID: uid_t = 65534

        @Test(.enabled(if: Rel.isRoot, "needs root to act as two other users"))
        func decoysInAStickyFolderBlockNothingAndAreLeftAlone() throws {
            let dir = TemporaryDirectory.scratch("planted")
            let shared = dir.path + "/shared"
            let run = dir.path + "/run"
            mkdir(shared, 0o777)
            chmod(shared, 0o1777)
            mkdir(run, 0o755)
            chown(run, Self.daemonUID, Self.daemonUID)
            let book = shared + "/v.txt"
            try TestFiles.write(BookFile.render(["a|Alpha|A", "b|Beta|B"]), to: book)
            chown(book, Self.daemonUID, Self.daemonUID)
            // The decoys: a file at the append intent record's name, a directory at the saved
            // history's, a file at a temporary's.
            let decoys = [".v.txt.booksd-append-intent", ".v.txt.booksd-Pl4nt0"]
            for name in decoys {
                try TestFiles.write(Array("planted by another user\n".utf8), to: shared + "/" + name)
                chown(shared + "/" + name, Self.otherUID, Self.otherUID)
            }
            mkdir(shared + "/.v.txt.history", 0o755)
            chown(shared + "/.v.txt.history", Self.otherUID, Self.otherUID)
            let start = {
                try DaemonProcess(
                    file: book, socket: run + "/s.sock", log: run + "/log",
                    prefix: ["/usr/bin/setpriv", "--reuid=1", "--regid=1", "--clear-groups"])
            }
            var daemon = try start()
            defer { _ = daemon.kill() }
            var client = try RequestClient(socket: run + "/s.sock")
            defer { client.close() }
            // An insert (the append path, with its intent record) and a rewrite both work.
            let inserted = try client.insert([Book(id: "c", name: "Gamma", author: "C")])
            #expect(inserted.error == nil, "\(inserted)")
            let updated = try client.update([BookPatch(id: "a", name: "Renamed")])
            #expect(updated.error == nil, "\(updated)")
            #expect(BookFile.books(TestFiles.readBytes(book) ?? []).keys.sorted() == ["a", "b", "c"])
            let before = try client.status()
            #expect(before.seq == 2)
            // Each decoy is logged once, and left as it was.
            let log = daemon.logText
            for name in decoys + [".v.txt.history"] {
                #expect(log.ranges(of: name + " ").count + log.ranges(of: name + ",").count == 1, "\(name): \(log)")
            }
            Self.expectUntouched(shared, decoys)
            // History works: a restart continues the same epoch.
            client.close()
            _ = daemon.stop()
            daemon = try start()
            client = try RequestClient(socket: run + "/s.sock")
            let after = try client.status()
            #expect(after.epoch == before.epoch && after.seq == 2, "history restored: \(after.epoch):\(after.seq)")
            #expect(try client.insert([Book(id: "d", name: "Delta", author: "D")]).error == nil)
            Self.expectUntouched(shared, decoys)
            let leftovers = TestFiles.names(in: shared).filter { $0.hasPrefix(".v.txt.booksd-") }
            #expect(leftovers.sorted() == decoys.sorted(), "no temporary or record of booksd's left: \(leftovers)")
            _ = daemon.stop()
        }

        static func expectUntouched(_ shared: String, _ decoys: [String]) {
            for name in decoys {
                var s = stat()
                #expect(lstat(shared + "/" + name, &s) == 0 && s.st_uid == otherUID, "\(name)")
                #expect(TestFiles.readText(shared + "/" + name) == "planted by another user\n", "\(name)")
            }
            var s = stat()
            #expect(lstat(shared + "/.v.txt.history", &s) == 0 && s.st_uid == otherUID)
            #expect(TestFiles.names(in: shared + "/.v.txt.history").isEmpty)
        }
    }
}
