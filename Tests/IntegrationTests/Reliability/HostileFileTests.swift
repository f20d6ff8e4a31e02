// Guarantee 3 (docs/RELIABILITY.md): a hostile book file (huge line, binary, directory, FIFO,
// symlink, unreadable, disk full) gives a clear status and log line, never a crash or hang, and
// nothing of the user's is overwritten.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

extension ReliabilitySuite {
    @Suite(.serialized)
    struct HostileFileTests {
        static func seedLines(_ n: Int = 12) -> [String] {
            BookFile.preservedLines + (0..<n).map { "b\($0)|Name \($0)|Author \($0)" }
        }

        /// Starts a daemon on a fresh scratch dir with the seeded file.
        static func start(
            _ name: String, extra: [String] = []
        ) throws -> (TemporaryDirectory, DaemonProcess, RequestClient) {
            let dir = TemporaryDirectory.scratch(name)
            Rel.writeRenameOver(dir.bookFile, BookFile.render(seedLines()))
            let daemon = try DaemonProcess(
                file: dir.bookFile, socket: dir.socket, log: dir.log,
                extra: ["--confirmation-ms", "300"] + extra)
            let client = try RequestClient(socket: dir.socket)
            return (dir, daemon, client)
        }

        /// Waits until `status` reports `word`; returns the last status.
        @discardableResult
        static func waitForState(
            _ client: RequestClient, _ word: String, seconds: Double = 8
        ) throws -> BooksProtocol.DaemonStatus {
            var last: BooksProtocol.DaemonStatus?
            _ = eventuallyBlocking(timeout: seconds) {
                last = try? client.status()
                return last?.fileState == word
            }
            let status = try #require(last, "no status answer")
            #expect(
                status.fileState == word,
                "fileState \(status.fileState) (\(status.fileProblem ?? "-")), expected \(word)")
            return status
        }

        /// Restores a good file and checks the daemon recovers and serves it.
        static func restore(_ dir: TemporaryDirectory, _ client: RequestClient) throws {
            Rel.writeRenameOver(dir.bookFile, BookFile.render(seedLines() + ["r1|Recovered|Test"]))
            let ok = eventuallyBlocking(timeout: 8) { (try? client.get("r1")) != nil }
            #expect(ok, "the daemon did not recover after the file was restored")
            try waitForState(client, "present")
        }

        /// `seedLines()` with book `b0` renamed (what `update b0 name=Renamed` leaves in the file).
        static func seedLinesWithB0Renamed(_ n: Int = 12) -> [UInt8] {
            var lines = seedLines(n)
            if let index = lines.firstIndex(of: "b0|Name 0|Author 0") { lines[index] = "b0|Renamed|Author 0" }
            return BookFile.render(lines)
        }

        @Test func hugeSingleLineIsABadLineAndIsKeptByWrites() throws {
            let (dir, daemon, client) = try Self.start("huge")
            let seed = BookFile.render(Self.seedLines())
            var huge = [UInt8](repeating: UInt8(ascii: "x"), count: 100 << 20)
            huge.append(0x0A)
            Rel.writeRenameOver(dir.bookFile, seed + huge)
            let seen = eventuallyBlocking(timeout: 20) { (try? client.status())?.badLines.count == 3 }
            #expect(seen, "the 100 MB line is not reported as a bad line")
            let status = try client.status()
            #expect(status.fileState == "present" && status.bookCount == 12)
            // An insert (the append fast path) keeps the 100 MiB line verbatim.
            let reply = try client.request(
                Request(
                    id: client.makeID(), op: .insert, books: [BookDraft(id: "after", name: "After", author: "Huge")]),
                timeout: 60)
            #expect(reply.ok, "insert failed: \(String(describing: reply.error))")
            let tail = Array("after|After|Huge\n".utf8)
            let appended = TestFiles.readBytes(dir.bookFile) ?? []
            #expect(Rel.sameBytes(appended, seed + huge + tail), "the insert did not keep the file byte for byte")
            #expect(Rel.count("saved (append)", in: daemon.logText) == 1, "the insert did not take the append path")
            // An update of another book forces a full rewrite: the 100 MiB line survives it byte for byte.
            let update = try client.request(
                Request(id: client.makeID(), op: .update, patches: [BookPatch(id: "b0", name: "Renamed")]), timeout: 60)
            #expect(update.ok, "update failed: \(String(describing: update.error))")
            #expect(Rel.count("saved (rewrite)", in: daemon.logText) == 1, "the update did not take the rewrite path")
            let rewritten = TestFiles.readBytes(dir.bookFile) ?? []
            let expected = Self.seedLinesWithB0Renamed() + huge + tail
            let difference = Rel.firstDifference(rewritten, expected).map(String.init) ?? "-"
            #expect(
                Rel.sameBytes(rewritten, expected),
                """
                the full rewrite did not keep the 100 MiB line byte for byte (\(rewritten.count) bytes, expected \
                \(expected.count), first difference at \(difference))
                """)
            #expect(try client.status().badLines.count == 3)
            let memory = daemon.memory
            print("[reliability] huge line: 100 MiB line kept; daemon VmRSS \(memory.rss) KiB, VmHWM \(memory.hwm) KiB")
            #expect(daemon.isRunning)
            #expect(daemon.logText.contains("bad line"))
            daemon.stop()
        }

        @Test func binaryFileDoesNotCrashAndIsNotDestroyed() throws {
            let (dir, daemon, client) = try Self.start("binary")
            var rng = SplitMix64(seed: 99)
            let seed = BookFile.render(Self.seedLines())
            var garbage: [UInt8] = []
            for _ in 0..<(1 << 20) {
                garbage.append(UInt8.random(in: 0...255, using: &rng) | (Bool.random(using: &rng) ? 0x80 : 0))
            }
            let bytes = seed + garbage
            Rel.writeRenameOver(dir.bookFile, bytes)
            let seen = eventuallyBlocking(timeout: 10) { ((try? client.status())?.badLines.count ?? 0) > 100 }
            #expect(seen, "binary garbage not reported as bad lines")
            #expect(try client.status().bookCount >= 12)
            // An insert keeps every byte: the file starts with exactly the original bytes.
            let reply = try client.insert([Book(id: "bin", name: "After", author: "Binary")])
            #expect(reply.ok, "insert failed: \(String(describing: reply.error))")
            let after = TestFiles.readBytes(dir.bookFile) ?? []
            #expect(
                after.count > bytes.count && Rel.sameBytes(Array(after.prefix(bytes.count)), bytes),
                """
                the insert changed or dropped bytes of the binary file (first difference at \
                \(Rel.firstDifference(after, bytes).map(String.init) ?? "-"))
                """)
            #expect(BookFile.books(after)["bin"] == Book(id: "bin", name: "After", author: "Binary"))
            // A full rewrite (update of another book) changes that book's row and nothing else. (The
            // insert was a rewrite too: the random bytes do not end with a newline, so no append.)
            let rewrites = Rel.count("saved (rewrite)", in: daemon.logText)
            let update = try client.update([BookPatch(id: "b0", name: "Renamed")])
            #expect(update.ok, "update failed: \(String(describing: update.error))")
            let rewritten = TestFiles.readBytes(dir.bookFile) ?? []
            let expected = Self.seedLinesWithB0Renamed() + after[seed.count...]
            #expect(
                Rel.sameBytes(rewritten, expected),
                """
                the rewrite changed bytes of the binary file (first difference at \
                \(Rel.firstDifference(rewritten, expected).map(String.init) ?? "-"))
                """)
            #expect(
                Rel.count("saved (rewrite)", in: daemon.logText) == rewrites + 1,
                "the update did not take the rewrite path")
            #expect(daemon.isRunning)
            try Self.restore(dir, client)
            daemon.stop()
        }

        @Test func directoryAtThePath() throws {
            let (dir, daemon, client) = try Self.start("dir")
            unlink(dir.bookFile)
            mkdir(dir.bookFile, 0o755)
            let status = try Self.waitForState(client, "unavailable")
            #expect(status.fileProblem?.contains("directory") == true, "\(status.fileProblem ?? "-")")
            #expect(status.bookCount == 12, "books dropped while the path is a directory")
            let reply = try client.insert([Book(id: "x", name: "X", author: "X")])
            #expect(reply.error?.code == .storeUnavailable, "\(reply)")
            #expect(daemon.logText.contains("directory"))
            rmdir(dir.bookFile)
            try Self.restore(dir, client)
            #expect(daemon.isRunning)
            daemon.stop()
        }

        @Test func fifoAtThePathDoesNotHang() throws {
            let (dir, daemon, client) = try Self.start("fifo")
            unlink(dir.bookFile)
            mkfifo(dir.bookFile, 0o644)
            let started = MonotonicClock.seconds()
            let status = try Self.waitForState(client, "unavailable")
            #expect(status.fileProblem?.contains("FIFO") == true, "\(status.fileProblem ?? "-")")
            let alone = try client.insert([Book(id: "x", name: "X", author: "X")])
            #expect(alone.error?.code == .storeUnavailable, "\(alone)")
            // With a writer holding the FIFO open, too.
            let writer = open(dir.bookFile, O_RDWR | O_NONBLOCK)
            _ = "b0|x|y\n".withCString { write(writer, $0, 7) }
            let reply = try client.insert([Book(id: "x", name: "X", author: "X")])
            #expect(reply.error?.code == .storeUnavailable, "\(reply)")
            #expect(try client.status().fileState == "unavailable")
            #expect(MonotonicClock.seconds() - started < 10, "the daemon was slow to answer with a FIFO at the path")
            close(writer)
            unlink(dir.bookFile)
            try Self.restore(dir, client)
            #expect(daemon.isRunning)
            daemon.stop()
        }

        /// A symlink planted at the book path is refused by default: nothing of its target is served
        /// or written, and status says why.
        @Test func aSymlinkAtTheBookPathIsRefusedByDefault() throws {
            let (dir, daemon, client) = try Self.start("symlink-refused")
            let elsewhere = TemporaryDirectory.scratch("symlink-victim")
            let target = elsewhere.path + "/passwd-copy"
            let victim = BookFile.render(["root|x|0:0:root:/root:/bin/bash", "t1|Target|Elsewhere"])
            Rel.writeInPlace(target, victim)
            let link = dir.path + "/link.tmp"
            symlink(target, link)
            rename(link, dir.bookFile)
            let status = try Self.waitForState(client, "unavailable")
            #expect(status.fileProblem?.contains("symbolic link") == true, "\(status.fileProblem ?? "-")")
            #expect(status.bookCount == 12, "the books last read are kept")
            #expect((try? client.get("t1")) == nil, "the link's target must not be served")
            let reply = try client.insert([Book(id: "via", name: "Via", author: "Link")])
            #expect(reply.error?.code == .storeUnavailable, "\(reply)")
            let rewrite = try client.update([BookPatch(id: "b0", name: "Via Link")])
            #expect(rewrite.error?.code == .storeUnavailable, "\(rewrite)")
            #expect(TestFiles.readBytes(target) == victim, "the link's target was written to")
            var s = stat()
            #expect(lstat(dir.bookFile, &s) == 0 && s.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
            daemon.stop()
        }

        /// With `allow_symlink`, a link owned by the daemon's user is followed and kept.
        @Test func aSymlinkIsFollowedAndKeptWhenAllowed() throws {
            let (dir, daemon, client) = try Self.start("symlink", extra: ["--set", "allow_symlink=yes"])
            let elsewhere = TemporaryDirectory.scratch("symlink-target")
            let target = elsewhere.path + "/real.txt"
            Rel.writeInPlace(target, BookFile.render(Self.seedLines() + ["t1|Target|Elsewhere"]))
            let link = dir.path + "/link.tmp"
            symlink(target, link)
            rename(link, dir.bookFile)
            #expect(
                eventuallyBlocking(timeout: 8) { (try? client.get("t1")) != nil }, "the symlink's target is not served")
            let reply = try client.insert([Book(id: "via", name: "Via", author: "Link")])
            #expect(reply.ok)
            var s = stat()
            lstat(dir.bookFile, &s)
            #expect(s.st_mode & S_IFMT == S_IFLNK, "the symlink was replaced by a regular file")
            #expect(
                BookFile.books(TestFiles.readBytes(target) ?? [])["via"] != nil, "the write did not reach the target")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).filter {
                $0.hasPrefix(".")
            }
            #expect(leftovers.isEmpty)
            daemon.stop()
        }

        @Test(.enabled(if: Rel.isRoot, "needs root to drop privileges"))
        func permissionDeniedForANonRootDaemon() throws {
            let dir = TemporaryDirectory.scratch("perm")
            let run = dir.path + "/run"
            mkdir(run, 0o755)
            chown(run, 65534, 65534)
            Rel.writeRenameOver(dir.bookFile, BookFile.render(Self.seedLines()))
            chmod(dir.bookFile, 0o644)
            let daemon = try DaemonProcess(
                file: dir.bookFile, socket: run + "/s.sock", log: run + "/log",
                prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
            let client = try RequestClient(socket: run + "/s.sock")
            #expect(try client.status().bookCount == 12)
            // Readable but the directory is not writable: writes fail cleanly.
            let reply = try client.insert([Book(id: "x", name: "X", author: "X")])
            #expect(reply.error?.code == .storeUnavailable, "\(reply)")
            #expect(reply.error?.message.contains("Permission denied") == true, "\(reply)")
            // Unreadable: unavailable with the reason, books kept, nothing rewritten.
            chmod(dir.bookFile, 0o600)
            Rel.writeInPlace(dir.bookFile, BookFile.render(Self.seedLines() + ["p1|Poke|Edit"]))
            let status = try Self.waitForState(client, "unavailable")
            #expect(status.fileProblem?.contains("Permission denied") == true, "\(status.fileProblem ?? "-")")
            #expect(status.bookCount == 12)
            chmod(dir.bookFile, 0o644)
            Rel.writeInPlace(dir.bookFile, BookFile.render(Self.seedLines() + ["p2|Poke|Again"]))
            #expect(eventuallyBlocking(timeout: 8) { (try? client.get("p2")) != nil }, "no recovery after chmod back")
            #expect(daemon.isRunning)
            daemon.stop()
        }

        /// Fills the file system at `mountPoint` with `name` until a write fails with ENOSPC.
        static func fill(_ mountPoint: String, _ name: String) {
            let filler = open(mountPoint + "/" + name, O_WRONLY | O_CREAT, 0o644)
            let block = [UInt8](repeating: 0x41, count: 4096)
            while (block.withUnsafeBytes { write(filler, $0.baseAddress, $0.count) }) > 0 {}
            close(filler)
        }

        static func fileSize(_ path: String) -> off_t {
            var s = stat()
            return stat(path, &s) == 0 ? s.st_size : 0
        }

        /// Dot files (temporary files, intent records) left beside the book file; the saved-history
        /// directory (`.books.txt.history`, docs/OPERATIONS.md) is the daemon's own and stays.
        static func dotFiles(_ directory: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix(".") && $0 != ".books.txt.history"
            }
        }

        /// Disk full on each of the three write paths (docs/RELIABILITY.md 3g): the append fast path
        /// (an insert into an untouched file), the full rewrite (an update, a delete) and the id
        /// assignment the daemon makes on its own for a row typed by hand (`name|author`).
        @Test(.enabled(if: Rel.isRoot, "needs root to mount a tmpfs"))
        func diskFullDuringAWriteLeavesTheFileIntact() throws {
            let outer = TemporaryDirectory.scratch("full")
            let mountPoint = outer.path + "/fs"
            mkdir(mountPoint, 0o755)
            guard Rel.run(["/bin/mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint]) == 0 else {
                Issue.record("cannot mount a tmpfs here")
                return
            }
            defer { _ = Rel.run(["/bin/umount", "-l", mountPoint]) }
            let file = mountPoint + "/books.txt"
            let original = BookFile.render(Self.seedLines(200))
            Rel.writeRenameOver(file, original)
            // The saved history outside the full file system: its writes (journal, file versions)
            // would take the pages this test frees for the write paths of the book file.
            let daemon = try DaemonProcess(
                file: file, socket: outer.socket, log: outer.log, extra: ["--state-directory", outer.path + "/state"])
            let client = try RequestClient(socket: outer.socket)
            var noSpaceLogged = 0
            /// Checks a refused client write: clear error, file byte-identical, nothing left, logged.
            func expectRefused(_ reply: Reply, _ what: String, file expected: [UInt8]) throws {
                #expect(!reply.ok && reply.error?.code == .storeUnavailable, "\(what): \(reply)")
                #expect(reply.error?.message.contains("No space left on device") == true, "\(what): \(reply)")
                #expect(TestFiles.readBytes(file) == expected, "\(what): the file was damaged")
                let leftovers = try Self.dotFiles(mountPoint)
                #expect(leftovers.isEmpty, "\(what): temporary file left after ENOSPC: \(leftovers)")
                let logged = Rel.count("No space left on device", in: daemon.logText)
                #expect(logged > noSpaceLogged, "\(what): the log does not say so")
                noSpaceLogged = logged
            }

            // 1. The append fast path: an insert into the file as the daemon read it.
            Self.fill(mountPoint, "filler")
            let big = Book(id: "full", name: String(repeating: "F", count: 8000), author: "Disk")
            try expectRefused(try client.insert([big]), "insert (append)", file: original)
            #expect(daemon.logText.contains("appending without a read"), "the insert did not take the append path")
            // Again with two pages free: the intent record fits, the row only partly (into the file's
            // last page); the partial row is cut back.
            try #require(truncate(mountPoint + "/filler", Self.fileSize(mountPoint + "/filler") - 8192) == 0)
            try expectRefused(try client.insert([big]), "insert (append, two pages free)", file: original)
            #expect(Rel.count("appending without a read", in: daemon.logText) == 2)
            #expect(Rel.count("saved (", in: daemon.logText) == 0)
            #expect(daemon.logText.contains("append to \(file): No space left on device"), "no partial append")
            Self.fill(mountPoint, "filler-2")  // the two pages are free again
            // 2. The full rewrite: an update and a delete.
            let renamed = BookPatch(id: "b0", name: String(repeating: "R", count: 8000))
            try expectRefused(try client.update([renamed]), "update (rewrite)", file: original)
            try expectRefused(try client.delete(["b1"]), "delete (rewrite)", file: original)
            #expect(try client.list().count == 200, "the daemon's view changed after failed writes")
            // Space freed: the same writes succeed, each on its path.
            unlink(mountPoint + "/filler")
            unlink(mountPoint + "/filler-2")
            let inserted = try client.insert([big])
            #expect(inserted.ok, "insert after freeing space failed: \(inserted)")
            #expect(Rel.count("saved (append)", in: daemon.logText) == 1, "the insert did not take the append path")
            let updated = try client.update([renamed])
            #expect(updated.ok, "update after freeing space failed: \(updated)")
            let deleted = try client.delete(["b1"])
            #expect(deleted.ok, "delete after freeing space failed: \(deleted)")
            #expect(Rel.count("saved (rewrite)", in: daemon.logText) == 2, "update and delete did not rewrite")
            var books = BookFile.books(TestFiles.readBytes(file) ?? [])
            #expect(books["full"] == big && books["b0"]?.name == renamed.name && books["b1"] == nil)

            // 3. Id assignment: a row typed by hand (in place, so it fits in the pages the file
            // already has) cannot be given its id; the row stays in the file as typed.
            Self.fill(mountPoint, "filler-3")
            let before = TestFiles.readBytes(file) ?? []
            let typed = before + Array("Typed By Hand|Disk Full\n".utf8)
            try #require((typed.count + 4095) / 4096 == (before.count + 4095) / 4096, "the edit needs a new page")
            Rel.writeInPlace(file, typed)
            let failed = eventuallyBlocking(timeout: 10) {
                Rel.count("No space left on device", in: daemon.logText) > noSpaceLogged
            }
            #expect(failed, "the id assignment did not fail with ENOSPC (or did not log it)")
            #expect(daemon.logText.contains("commit of 0 write(s)"), "no id assignment (a save without client writes)")
            MonotonicClock.sleep(seconds: 0.3)
            #expect(TestFiles.readBytes(file) == typed, "the row typed by hand was not kept as typed")
            #expect(try Self.dotFiles(mountPoint).isEmpty, "temporary file left after ENOSPC")
            #expect(try client.status().fileState == "present")
            // Space freed: the next write gives the row its id.
            unlink(mountPoint + "/filler-3")
            let next = try client.update([BookPatch(id: "b2", name: "After Disk Full")])
            #expect(next.ok, "write after freeing space failed: \(next)")
            books = BookFile.books(TestFiles.readBytes(file) ?? [])
            let typedBook = books.values.first { $0.name == "Typed By Hand" && $0.author == "Disk Full" }
            #expect(
                typedBook.map { UUID(uuidString: $0.id) != nil } == true, "the typed row got no id: \(typedBook as Any)"
            )
            #expect(books["b2"]?.name == "After Disk Full")
            #expect(try Self.dotFiles(mountPoint).isEmpty)
            #expect(daemon.isRunning)
            daemon.stop()
        }
    }
}
