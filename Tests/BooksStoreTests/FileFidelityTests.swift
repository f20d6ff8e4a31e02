import BooksCore
import BooksTestSupport
import CLinux
import Glibc
// Rewrites dropped extended attributes and ACLs, and a read-only (0444) file
// was rewritten.
import Testing

@testable import BooksStore

@Suite struct FileFidelityTests {
    /// `system.posix_acl_access` for u::rw-, user:4321:r--, g::r--, m::r--, o::r--.
    static let acl: [UInt8] = {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u32(2)
        for (tag, perm, id) in [
            (0x01, 6, UInt32.max), (0x02, 4, 4321), (0x04, 4, UInt32.max), (0x10, 4, UInt32.max),
            (0x20, 4, UInt32.max),
        ] as [(UInt16, UInt16, UInt32)] {
            u16(tag)
            u16(perm)
            u32(id)
        }
        return out
    }()

    func attribute(_ name: String, of path: String) -> [UInt8]? {
        var value = [UInt8](repeating: 0, count: 4096)
        let n = getxattr(path, name, &value, value.count)
        return n < 0 ? nil : Array(value[..<n])
    }

    @Test func extendedAttributesAndACLsSurviveARewrite() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        let tag = Array("blue".utf8)
        guard setxattr(path, "user.booksync-test", tag, tag.count, 0) == 0,
            setxattr(path, "system.posix_acl_access", Self.acl, Self.acl.count, 0) == 0
        else {
            print("extended attributes or ACLs are not supported under /var/tmp (errno \(errno)): skipped")
            return
        }
        var before = stat()
        stat(path, &before)
        let store = TextBookStore(path: path)
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        _ = try store.save(SaveRequest(deleted: ["1"]), onto: BookDocument(parsing: canonical), expected: identity)
        #expect(dir.read("books.txt") == [])
        #expect(attribute("user.booksync-test", of: path) == tag, "a user attribute was dropped")
        #expect(attribute("system.posix_acl_access", of: path) == Self.acl, "the ACL was dropped")
        var after = stat()
        stat(path, &after)
        #expect(after.st_ino != before.st_ino && after.st_mode == before.st_mode)
    }

    @Test func aReadOnlyFileIsNotRewrittenOrAppendedTo() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        chmod(path, 0o444)
        let store = TextBookStore(path: path)
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let document = BookDocument(parsing: canonical)
        do {
            _ = try store.save(SaveRequest(deleted: ["1"]), onto: document, expected: identity)
            Issue.record("a 0444 file was rewritten")
        } catch {
            #expect(error.description.contains("read-only"), "\(error)")
        }
        do {
            _ = try store.appendIfPossible(
                SaveRequest(inserted: [.init(temporaryID: "t", id: "2", name: "A", author: "B")]),
                onto: document, expected: identity)
            Issue.record("a 0444 file was appended to")
        } catch {
            #expect(error.description.contains("read-only"), "\(error)")
        }
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert"]))
        #expect(dir.names() == ["books.txt"])
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the file another owner"))
    func theOwnerAndGroupAreKept() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        #expect(chown(path, 4321, 4322) == 0)
        chmod(path, 0o640)
        let store = TextBookStore(path: path)
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        _ = try store.save(SaveRequest(deleted: ["1"]), onto: BookDocument(parsing: canonical), expected: identity)
        var after = stat()
        stat(path, &after)
        #expect(after.st_uid == 4321 && after.st_gid == 4322 && after.st_mode & 0o7777 == 0o640)
    }
}
