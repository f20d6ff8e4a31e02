import BooksCore
import BooksTestSupport
import Glibc
// A writer killed between its swap and its check leaves the user's version at
// the temporary name; start-up deleted it.
import Testing

@testable import BooksStore

@Suite struct StaleTemporaryTests {
    @Test func aLeftoverThatDiffersFromTheBookFileIsKeptInARecoveryFile() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["a|2|client"]))
        try dir.write(".books.txt.booksd-Ab12Cd", lines(["a|1|hand edit"]))  // the user's version
        let reported = AtomicFileWriter.removeStaleTemporaries(beside: dir.file("books.txt"))
        let names = dir.names()
        #expect(names.count == 2 && names[0] == "books.txt" && names[1].hasPrefix("books.txt.recovered-"), "\(names)")
        #expect(names.count == 2 && dir.read(names[1]) == lines(["a|1|hand edit"]), "the user's version was deleted")
        #expect(reported.count == 1 && reported[0].contains("kept in"), "\(reported)")
        #expect(dir.read("books.txt") == lines(["a|2|client"]))
    }

    @Test func identicalEmptyAndLinkLeftoversAreRemovedWithoutFollowing() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["a|1|x"]))
        try dir.write("elsewhere", lines(["keep me"]))
        try dir.write(".books.txt.booksd-111111", lines(["a|1|x"]))
        try dir.write(".books.txt.booksd-222222", [])
        #expect(symlink(dir.file("elsewhere"), dir.file(".books.txt.booksd-333333")) == 0)
        let found = AtomicFileWriter.cleanUpStaleTemporaries(beside: dir.file("books.txt"))
        #expect(found.removed == [".books.txt.booksd-111111", ".books.txt.booksd-222222", ".books.txt.booksd-333333"])
        #expect(found.kept.isEmpty)
        #expect(dir.names() == ["books.txt", "elsewhere"])
        #expect(dir.read("elsewhere") == lines(["keep me"]))
        #expect(found.logMessage?.hasPrefix("removed temporary files") == true)
    }
}
