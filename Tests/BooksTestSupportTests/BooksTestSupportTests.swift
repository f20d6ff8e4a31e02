import BooksTestSupport
import Glibc
import Testing

/// The shared test-support layer itself: every test and benchmark leans on it.
@Suite struct BooksTestSupportTests {
    @Test func splitMix64MatchesTheReferenceSequence() {
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
    }

    @Test func temporaryDirectoryWritesReadsAndRemovesItsTree() throws {
        var path = ""
        do {
            let directory = try TemporaryDirectory(prefix: "booksync-support-test")
            path = directory.path
            try directory.write("a.txt", "one\n")
            let sub = directory.makeDirectory("sub")
            try TestFiles.write([1, 2, 3], to: sub + "/b.bin")
            try TestFiles.append("two\n", to: directory.file("a.txt"))
            #expect(directory.readText("a.txt") == "one\ntwo\n")
            #expect(directory.names() == ["a.txt", "sub"])
            try TestFiles.replace(Array("three\n".utf8), at: directory.file("a.txt"))
            #expect(directory.read("a.txt") == Array("three\n".utf8))
            #expect(directory.names() == ["a.txt", "sub"], "the replace left its temporary file")
            withExtendedLifetime(directory) {}
        }
        #expect(TemporaryDirectory.keepRequested || !TestFiles.exists(path), "not removed when released")
    }

    @Test func runCapturesOutputStatusAndInput() async throws {
        let echo = try await ChildProcess.run(
            ["/bin/sh", "-c", "cat; echo err >&2; exit 3"], input: Array("in\n".utf8))
        #expect(echo.status == 3)
        #expect(echo.output == "in\nerr\n")
        let blocking = try ChildProcess.runBlocking(["/bin/echo", "hi"])
        #expect(blocking.succeeded && blocking.output == "hi\n")
    }

    @Test func runKillsWhatOutlivesItsTimeout() async throws {
        let started = MonotonicClock.seconds()
        let result = try await ChildProcess.run(["/bin/sleep", "30"], timeout: 0.3)
        #expect(result.timedOut)
        #expect(MonotonicClock.seconds() - started < 25, "it waited for the 30 s sleep")
    }

    @Test func terminateReportsTheSignal() throws {
        let child = try ChildProcess.spawn(["/bin/sleep", "30"])
        #expect(child.isRunning)
        #expect(child.terminate(grace: 5) == 128 + SIGTERM)
        #expect(child.exitSignal == SIGTERM && child.exitCode == nil)
    }

    @Test func eventuallyReturnsAsSoonAsTheConditionHolds() async {
        var polls = 0
        #expect(
            // A generous timeout: on a loaded machine (under ASan, in CI) one 5 ms pause of the
            // cooperative pool once took over 10 s.
            await eventually(timeout: 120) {
                polls += 1
                return polls == 3
            })
        #expect(polls == 3, "it polled again after the condition held")
        #expect(await eventually(timeout: 0.05) { false } == false)
        #expect(eventuallyBlocking(timeout: 0.05) { false } == false)
    }

    @Test func lineReaderJoinsSplitLinesAndSeesTheEnd() throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd) }
        let reader = LineReader(fd: readEnd)
        #expect(reader.nextLine(timeout: 0.05) == nil)
        _ = write(writeEnd, "par", 3)
        #expect(reader.nextLine(timeout: 0.05) == nil)
        _ = write(writeEnd, "tial\r\nnext\nlast", 15)
        #expect(reader.nextLine(timeout: 1) == "partial")
        #expect(reader.availableLines() == ["next"])
        close(writeEnd)
        #expect(reader.nextLine(timeout: 1) == nil)
        #expect(reader.isAtEnd)
    }

    @Test func lineClientSendsAndReadsLines() throws {
        let directory = try TemporaryDirectory(prefix: "booksync-support-sock")
        defer { directory.remove() }
        let path = directory.file("s.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let bound = try UnixSocketAddress(path: path).withSockaddr { bind(listener, $0, $1) }
        try #require(bound == 0 && listen(listener, 1) == 0)
        #expect(throws: TestSupportError.self) { try LineClient(path: directory.file("nothing.sock")) }
        #expect(throws: TestSupportError.self) { try UnixSocketAddress(path: "/" + String(repeating: "x", count: 120)) }

        let client = try LineClient(path: path)
        let server = accept(listener, nil, nil)
        try #require(server >= 0)
        defer { close(server) }
        #expect(client.send(#"{"id":"1"}"#))
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(server, &buffer, buffer.count)
        #expect(String(decoding: buffer[0..<max(n, 0)], as: UTF8.self) == "{\"id\":\"1\"}\n")
        _ = write(server, "a\nb\n", 4)
        #expect(client.readLine(timeout: 1) == "a")
        #expect(client.readLine(timeout: 1, containing: "b") == "b")
        #expect(client.readLine(timeout: 0.05) == nil)
        #expect(!client.isClosedByPeer(timeout: 0.05))
        shutdown(server, Int32(SHUT_RDWR))
        #expect(client.isClosedByPeer(timeout: 2))
    }
}
