import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksStore

/// Files that are not book lists are refused without being read whole: sparse ones and ones
/// that begin with NUL bytes. Text holding a NUL byte in a row is read as before.
@Suite struct FileReaderBinaryTests {
    func problem(_ snapshot: FileSnapshot) -> String? {
        guard case .unavailable(.invalidContent(_, let detail)) = snapshot else { return nil }
        return detail
    }

    @Test func sparseAndZeroFilledFilesAreRefused() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("sparse.txt", Array("1|A|B\n".utf8))
        #expect(truncate(dir.file("sparse.txt"), 64 << 20) == 0)
        #expect(problem(FileReader.read(dir.file("sparse.txt")))?.contains("sparse file") == true)
        try dir.write("zeros.txt", [UInt8](repeating: 0, count: 10_000))
        #expect(problem(FileReader.read(dir.file("zeros.txt")))?.contains("begins with 4096 NUL bytes") == true)
        guard case .unavailable = FileReader.compare(dir.file("sparse.txt"), with: []) else {
            Issue.record("a sparse file was compared")
            return
        }
    }

    @Test func textWithANULInARowIsRead() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let text = Array("1|Emma|Jane\n2|a".utf8) + [0] + Array("b|x\n".utf8)
        try dir.write("books.txt", text)
        guard case .present(let bytes, _) = FileReader.read(dir.file("books.txt")) else {
            Issue.record("a text file with a NUL in a row was refused")
            return
        }
        #expect(bytes == text)
    }
}
