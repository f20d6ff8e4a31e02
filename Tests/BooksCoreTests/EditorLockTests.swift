import BooksTestSupport
import Testing

@testable import BooksCore

@Suite struct EditorLockTests {
    init() {}

    @Test func vimBlockZeroFields() throws {
        let header = SwapFileHeader(
            program: "VIM 9.0", mtimeSeconds: 1_764_633_600, inode: 0xDEAD_BEEF, pid: 4242, user: "ana",
            host: "desk")
        let parsed = try #require(SwapFileHeader(parsing: header.encoded()))
        #expect(parsed == header)
        #expect(parsed.namesVersion && !parsed.isNano)
        // The offsets of the documented layout, byte by byte.
        let bytes = header.encoded()
        #expect(Array(bytes[0..<9]) == Array("b0VIM 9.0".utf8))
        #expect(Array(bytes[16..<20]) == [0x00, 0x2C, 0x2E, 0x69])
        #expect(Array(bytes[20..<24]) == [0xEF, 0xBE, 0xAD, 0xDE])
        #expect(Array(bytes[24..<28]) == [0x92, 0x10, 0, 0])
        #expect(Array(bytes[28..<31]) == Array("ana".utf8) && bytes[31] == 0)
        #expect(Array(bytes[68..<72]) == Array("desk".utf8))
    }

    @Test func nanoLockNamesNoVersion() throws {
        var bytes = [UInt8](repeating: 0, count: 1024)
        bytes.replaceSubrange(0..<10, with: Array("b0nano 7.2".utf8))
        bytes[24] = 7
        bytes.replaceSubrange(28..<31, with: Array("bob".utf8))
        let parsed = try #require(SwapFileHeader(parsing: bytes))
        #expect(parsed.isNano && !parsed.namesVersion && parsed.pid == 7 && parsed.user == "bob")
        #expect(FileVersions().version(namedBy: parsed) == nil)
    }

    @Test func notASwapFile() {
        #expect(SwapFileHeader(parsing: Array("b0".utf8)) == nil)
        #expect(SwapFileHeader(parsing: [UInt8](repeating: 0x41, count: 4096)) == nil)
        var wrongProgram = SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 1, inode: 1, pid: 1, user: "", host: "")
            .encoded()
        wrongProgram.replaceSubrange(2..<5, with: Array("EMX".utf8))
        #expect(SwapFileHeader(parsing: wrongProgram) == nil)
    }

    /// A real swap file written by vim names the file's mtime and inode as `stat` shows them.
    @Test(.enabled(if: TestFiles.exists("/usr/bin/vim")))
    func realVimSwapFile() throws {
        let directory = try TemporaryDirectory(prefix: "vim-swap")
        _ = try directory.write("books.txt", "1|A|a\n")
        // Ex mode, no terminal: load the file, write the swap file out, copy it, quit.
        let result = try ChildProcess.runBlocking(
            [
                "/bin/sh", "-c",
                "cd '\(directory.path)' && vim -u NONE -N -e -s -c preserve -c 'silent !cp .books.txt.swp swap-copy' "
                    + "-c 'qa!' books.txt && stat -c '%i %Y %s' books.txt",
            ], stderr: .devNull, timeout: 60)
        #expect(result.succeeded, "\(result)")
        // `stat` of the file: inode, mtime (seconds), size.
        let fields = result.output.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
        try #require(fields.count == 3, "\(result)")
        let copy = try #require(directory.read("swap-copy"))
        let header = try #require(SwapFileHeader(parsing: copy))
        #expect(header.program.hasPrefix("VIM "))
        #expect(header.inode == UInt32(truncatingIfNeeded: fields[0]))
        #expect(header.mtimeSeconds == UInt32(truncatingIfNeeded: fields[1]))
        #expect(header.pid != 0 && !header.user.isEmpty)
        let version = FileVersion(
            seq: 3, inode: fields[0], size: Int(fields[2]), mtimeSeconds: Int64(fields[1]), mtimeNanoseconds: 0)
        #expect(version.matches(header))
    }

    @Test func emacsLockTarget() throws {
        let lock = try #require(EmacsLock(target: "ana@desk.example.org.4242:1764630000"))
        #expect(lock.user == "ana" && lock.host == "desk.example.org" && lock.pid == 4242)
        #expect(lock.bootTime == 1_764_630_000)
        #expect(EmacsLock(target: "ana@desk.77")?.bootTime == nil)
        #expect(EmacsLock(target: "no-at-sign.1") == nil)
        #expect(EmacsLock(target: "ana@desk.notapid") == nil)
    }

    @Test func candidateNames() {
        let names = EditorLock.candidateNames(for: "books.txt")
        #expect(names.prefix(3) == [".books.txt.swp", ".books.txt.swo", ".books.txt.swn"])
        #expect(names.count == 17 && names.last == ".#books.txt")
    }

    @Test func versionsFindTheBaseASwapNames() {
        var versions = FileVersions(capacity: 3)
        for seq in 1...5 {
            versions.record(
                FileVersion(
                    seq: UInt64(seq), inode: 0x1_0000_0000 + UInt64(seq), size: 10, mtimeSeconds: 100 + Int64(seq),
                    mtimeNanoseconds: 5))
        }
        #expect(versions.versions.map(\.seq) == [3, 4, 5])
        let swap = SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 104, inode: 4, pid: 1, user: "", host: "")
        #expect(versions.version(namedBy: swap)?.seq == 4)
        let trimmed = SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 101, inode: 1, pid: 1, user: "", host: "")
        #expect(versions.version(namedBy: trimmed) == nil)
        #expect(versions.version(inPlaceAt: 104, nanoseconds: 9)?.seq == 4)
        // An append within the same second keeps inode and mtime seconds: both are candidates.
        versions.record(FileVersion(seq: 6, inode: 0x1_0000_0005, size: 20, mtimeSeconds: 105, mtimeNanoseconds: 7))
        let named = SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 105, inode: 5, pid: 1, user: "", host: "")
        #expect(versions.candidates(namedBy: named).map(\.seq) == [6, 5])
    }
}
