import BooksTestSupport
import Testing

/// Reading `strace -f -y -v -xx` output into `FileOperation`s (`StraceParser`, `TraceInterpreter`).
@Suite struct StraceParserTests {
    /// `text` as strace -xx prints it.
    func hex(_ text: String) -> String {
        text.utf8.map { ($0 < 16 ? "\\x0" : "\\x") + String($0, radix: 16) }.joined()
    }

    func lines(_ root: String) -> String {
        let book = hex(root + "/books.txt")
        let temp = hex(root + "/.books.txt.booksd-AbCdEf")
        let dir = hex(root)
        return """
            100 openat(AT_FDCWD<\(hex("/"))>, "\(hex(root + "/.books.txt.booksd-AbCdEf"))", O_RDWR|O_CREAT|O_EXCL, 0600) = 5<\(temp)>
            100 newfstatat(5<\(temp)>, "", {st_dev=makedev(0xfe, 0x1), st_ino=777, st_mode=S_IFREG|0600, st_size=0}, AT_EMPTY_PATH) = 0
            100 fchmod(5<\(temp)>, 0644) = 0
            100 write(5<\(temp)>, "\(hex("a|A|B\n"))", 6 <unfinished ...>
            101 sendto(9<\(hex("socket:[1]"))>, "\(hex("{\"id\":\"h\",\"ok\":true}\n"))", 21, MSG_NOSIGNAL, NULL, 0) = 21
            100 <... write resumed>) = 6
            100 fsync(5<\(temp)>) = 0
            100 renameat2(AT_FDCWD<\(dir)>, "\(hex(".books.txt.booksd-AbCdEf"))", AT_FDCWD<\(dir)>, "\(hex("books.txt"))", RENAME_EXCHANGE) = 0
            100 openat(AT_FDCWD<\(dir)>, "\(dir)", O_RDONLY|O_CLOEXEC|O_DIRECTORY) = 6<\(dir)>
            100 fsync(6<\(dir)>) = 0
            100 unlink("\(hex(root + "/.books.txt.booksd-AbCdEf"))") = 0
            100 unlink("\(hex(root + "/missing"))") = -1 ENOENT (No such file or directory)
            100 openat(AT_FDCWD<\(dir)>, "\(book)", O_WRONLY|O_APPEND) = 7<\(book)>
            100 write(7<\(book)>, "\(hex("c|C|D\n"))", 6) = 6
            100 fdatasync(7<\(book)>) = 0
            101 sendto(9<\(hex("socket:[1]"))>, "\(hex("{\"id\":\"r1\",\"ok\":true}\n"))", 22, MSG_NOSIGNAL, NULL, 0) = 22
            101 write(2<\(hex("/var/log/x"))>, "\(hex("log"))", 3) = 3
            100 +++ exited with 0 +++
            """
    }

    @Test func callsAreJoinedAndDecoded() throws {
        let calls = try StraceParser.calls(in: lines("/d"))
        #expect(calls.map(\.name).prefix(5) == ["openat", "newfstatat", "fchmod", "sendto", "write"])
        #expect(try StraceParser.bytes(ofString: calls[4].arguments[1]) == Array("a|A|B\n".utf8))
        #expect(try StraceParser.descriptor(calls[0].arguments[0]).path == "/")
        #expect(calls[10].succeeded == false)
        #expect(throws: StraceError.self) { try StraceParser.bytes(ofString: "\"\\x61\"...") }
    }

    @Test func operationsAreResolvedToInodesInTheDirectory() throws {
        let initial = DirectoryImage(files: ["books.txt": FileImage(bytes: Array("x|X|Y\n".utf8))])
        let recorded = try TraceInterpreter.operations(
            of: StraceParser.calls(in: lines("/d")), root: "/d", initial: initial
        ) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            return text.hasPrefix("{\"id\":\"r") ? "ack" : nil
        }
        let expected: [FileOperation] = [
            .create(name: ".books.txt.booksd-AbCdEf", inode: 2, mode: 0o600),
            .setAttributes(inode: 2, mode: 0o644),
            .output(label: nil),
            .write(inode: 2, offset: 0, bytes: Array("a|A|B\n".utf8)),
            .sync(inode: 2, dataOnly: false),
            .exchange(".books.txt.booksd-AbCdEf", "books.txt"),
            .syncDirectory(name: ""),
            .unlink(name: ".books.txt.booksd-AbCdEf"),
            .write(inode: 2, offset: 6, bytes: Array("c|C|D\n".utf8)),  // O_APPEND: at the end of inode 2
            .sync(inode: 2, dataOnly: true),
            .output(label: "ack"),
        ]
        #expect(recorded.operations == expected)
        #expect(recorded.realIdentities[2] == RealFileIdentity(device: 0xfe01, inode: 777))
    }

    /// A shared writable mapping's `msync` is a sync of its file; an edit injected after a labelled
    /// send comes right after it, on a new inode, and later calls on the name resolve to that inode.
    @Test func mappingsAreSyncedAndInjectedEditsArePlaced() throws {
        let page = hex("/d/published")
        let book = hex("/d/books.txt")
        let socket = hex("socket:[1]")
        let trace = """
            100 openat(AT_FDCWD<\(hex("/"))>, "\(page)", O_RDWR|O_NOFOLLOW) = 5<\(page)>
            100 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 5<\(page)>, 0) = 0x7f0000001000
            100 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000003000
            100 close(5<\(page)>) = 0
            100 msync(0x7f0000003000, 8192, MS_SYNC) = 0
            100 msync(0x7f0000001000, 4096, MS_SYNC) = 0
            101 sendto(9<\(socket)>, "\(hex("{\"id\":\"e1\",\"ok\":true}\n"))", 22, MSG_NOSIGNAL, NULL, 0) = 22
            100 openat(AT_FDCWD<\(hex("/"))>, "\(book)", O_WRONLY|O_APPEND) = 6<\(book)>
            100 write(6<\(book)>, "\(hex("c|C|D\n"))", 6) = 6
            """
        let initial = DirectoryImage(files: [
            "books.txt": FileImage(bytes: Array("x|X|Y\n".utf8)), "published": FileImage(bytes: [0, 0]),
        ])
        let edited = Array("e|E|F\n".utf8)
        let recorded = try TraceInterpreter.operations(
            of: StraceParser.calls(in: trace), root: "/d", initial: initial,
            injected: ["e1": [.replace(name: "books.txt", bytes: edited, temporary: ".edit")]]
        ) { bytes in String(decoding: bytes, as: UTF8.self).hasPrefix("{\"id\":\"e1") ? "e1" : nil }
        #expect(
            recorded.operations == [
                .sync(inode: 2, dataOnly: true), .output(label: "e1"), .create(name: ".edit", inode: 3, mode: 0o644),
                .write(inode: 3, offset: 0, bytes: edited), .rename(from: ".edit", to: "books.txt"),
                .write(inode: 3, offset: 6, bytes: Array("c|C|D\n".utf8)),
            ])
    }
}
