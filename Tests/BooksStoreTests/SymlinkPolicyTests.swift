import BooksCore
import BooksTestSupport
import Glibc
// A symbolic link at the book path was followed for reading and writing (a link
// to a copy of /etc/passwd got that file rewritten).
import Testing

@testable import BooksStore

@Suite struct SymlinkPolicyTests {
    let passwd = lines(["root:x:0:0:root:/root:/bin/bash", "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin"])

    @Test func aSymlinkIsNeitherReadNorRewrittenByDefault() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("passwd", passwd)
        #expect(symlink(dir.file("passwd"), dir.file("books.txt")) == 0)
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .unavailable(let error) = store.fetch() else {
            Issue.record("the link was followed for reading")
            // What a daemon that read it would then do: write the file back with ids.
            if case .present(let canonical, let identity) = store.fetch() {
                _ = try? store.save(SaveRequest(), onto: BookDocument(parsing: canonical), expected: identity)
            }
            #expect(dir.read("passwd") == passwd, "the link's target was rewritten")
            return
        }
        #expect(error.description.contains("is a symbolic link"), "\(error)")
        #expect(error.description.contains("allow_symlink"), "\(error)")
        // A write planned on the target's identity is refused too.
        let identity = try #require(FileIdentity.of(path: dir.file("passwd")))
        #expect(throws: BookFileError.symlinkRefused(path: dir.file("books.txt"), target: dir.file("passwd"))) {
            try store.writeCanonical(lines(["1|A|B"]), replacing: passwd, expected: identity)
        }
        #expect(throws: BookFileError.symlinkRefused(path: dir.file("books.txt"), target: dir.file("passwd"))) {
            try AppendWriter.append(lines(["1|A|B"]), to: dir.file("books.txt"), expected: identity)
        }
        #expect(dir.read("passwd") == passwd)
        var s = stat()
        #expect(lstat(dir.file("books.txt"), &s) == 0 && s.st_mode & S_IFMT == S_IFLNK)
        #expect(dir.names() == ["books.txt", "passwd"])
    }

    @Test func anAllowedLinkOfTheDaemonsUserIsFollowed() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("real.txt", lines(["1|A|B"]))
        #expect(symlink(dir.file("real.txt"), dir.file("books.txt")) == 0)
        let configuration = BookStoreConfiguration(path: dir.file("books.txt"), allowSymlink: true)
        let store = makeBookStore(configuration: configuration)
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let result = try #require(
            try store.appendIfPossible(
                SaveRequest(inserted: [.init(temporaryID: "t", id: "2", name: "C", author: "D")]),
                onto: BookDocument(parsing: canonical), expected: identity))
        #expect(dir.read("real.txt") == lines(["1|A|B", "2|C|D"]))
        _ = try store.save(
            SaveRequest(deleted: ["1"]), onto: BookDocument(parsing: lines(["1|A|B", "2|C|D"])),
            expected: result.identity)
        #expect(dir.read("real.txt") == lines(["2|C|D"]))
        var s = stat()
        #expect(lstat(dir.file("books.txt"), &s) == 0 && s.st_mode & S_IFMT == S_IFLNK)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the link another owner"))
    func anAllowedLinkOfAnotherUserIsRefused() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("real.txt", lines(["1|A|B"]))
        #expect(symlink(dir.file("real.txt"), dir.file("books.txt")) == 0)
        #expect(lchown(dir.file("books.txt"), 4321, 4321) == 0)
        let store = TextBookStore(
            configuration: BookStoreConfiguration(path: dir.file("books.txt"), allowSymlink: true))
        guard case .unavailable(let error) = store.fetch() else {
            Issue.record("followed")
            return
        }
        #expect(error == .symlinkNotOwned(path: dir.file("books.txt"), target: dir.file("real.txt"), owner: 4321))
    }
}
