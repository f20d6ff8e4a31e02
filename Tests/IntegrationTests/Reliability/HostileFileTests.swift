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

        @Test func hugeSingleLineIsABadLineAndIsKeptByWrites() throws {
            let (dir, daemon, client) = try Self.start("huge")
            var bytes = BookFile.render(Self.seedLines())
            bytes.append(contentsOf: [UInt8](repeating: UInt8(ascii: "x"), count: 100 << 20))
            bytes.append(0x0A)
            Rel.writeRenameOver(dir.bookFile, bytes)
            let seen = eventuallyBlocking(timeout: 20) { (try? client.status())?.badLines.count == 3 }
            #expect(seen, "the 100 MB line is not reported as a bad line")
            let status = try client.status()
            #expect(status.fileState == "present" && status.bookCount == 12)
            // A client write keeps the 100 MB line verbatim.
            let reply = try client.insert([Book(id: "after", name: "After", author: "Huge")])
            #expect(reply.ok, "write failed: \(String(describing: reply.error))")
            let after = TestFiles.readBytes(dir.bookFile) ?? []
            #expect(after.count == bytes.count + "after|After|Huge\n".utf8.count)
            let kept =
                after.count >= bytes.count
                && after.withUnsafeBytes { a in
                    bytes.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, b.count) == 0 }
                }
            #expect(kept, "the file's original bytes (with the 100 MiB line) were not kept verbatim")
            let memory = daemon.memory
            print("[reliability] huge line: 100 MiB line kept; daemon VmRSS \(memory.rss) KiB, VmHWM \(memory.hwm) KiB")
            #expect(daemon.isRunning)
            #expect(daemon.logText.contains("bad line"))
            daemon.stop()
        }

        @Test func binaryFileDoesNotCrashAndIsNotDestroyed() throws {
            let (dir, daemon, client) = try Self.start("binary")
            var rng = SplitMix64(seed: 99)
            var bytes = BookFile.render(Self.seedLines())
            for _ in 0..<(1 << 20) {
                bytes.append(UInt8.random(in: 0...255, using: &rng) | (Bool.random(using: &rng) ? 0x80 : 0))
            }
            Rel.writeRenameOver(dir.bookFile, bytes)
            let seen = eventuallyBlocking(timeout: 10) { ((try? client.status())?.badLines.count ?? 0) > 100 }
            #expect(seen, "binary garbage not reported as bad lines")
            #expect(try client.status().bookCount >= 12)
            let reply = try client.insert([Book(id: "bin", name: "After", author: "Binary")])
            #expect(reply.ok)
            let after = TestFiles.readBytes(dir.bookFile) ?? []
            #expect(after.count >= bytes.count, "the daemon dropped bytes of a binary file")
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
        /// or written, and status says why (issue 16).
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
            #expect(TestFiles.readBytes(target) == victim, "the link's target was written to")
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
            let daemon = try DaemonProcess(file: file, socket: outer.socket, log: outer.log)
            let client = try RequestClient(socket: outer.socket)
            // Fill the file system.
            let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT, 0o644)
            let block = [UInt8](repeating: 0x41, count: 4096)
            while (block.withUnsafeBytes { write(filler, $0.baseAddress, $0.count) }) > 0 {}
            close(filler)
            let reply = try client.insert([Book(id: "full", name: String(repeating: "F", count: 8000), author: "Disk")])
            #expect(!reply.ok && reply.error?.code == .storeUnavailable, "\(reply)")
            #expect(reply.error?.message.contains("No space left") == true, "\(reply)")
            #expect(TestFiles.readBytes(file) == original, "the original file was damaged")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: mountPoint).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "temporary file left after ENOSPC: \(leftovers)")
            #expect(daemon.logText.contains("No space left"))
            #expect(try client.status().bookCount == 200)
            unlink(mountPoint + "/filler")
            let again = try client.insert([Book(id: "full", name: "Fits", author: "Disk")])
            #expect(again.ok, "write after freeing space failed: \(again)")
            #expect(daemon.isRunning)
            daemon.stop()
        }
    }
}
