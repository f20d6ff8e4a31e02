import BooksPlatform
import Glibc
import Testing

@testable import BooksDaemon

/// Collects records in memory. Thread safety: all state is inside a `Locked`.
private final class RecordingBackend: LogBackend {
    let records = Locked<[(LogLevel, String, [String: String])]>([])
    func write(level: LogLevel, message: String, fields: [String: String]) {
        records.withLock { $0.append((level, message, fields)) }
    }
    var messages: [String] { records.withLock { $0.map(\.1) } }
}

@Suite struct LoggerTests {
    @Test func stderrLineFormat() {
        let line = StderrLogBackend.formatLine(
            level: .warning, message: "file shrank\nbadly",
            fields: ["BOOKS_SEQ": "7", "BOOKS_FILE": "/srv/my books.txt"],
            seconds: 1_796_025_600, milliseconds: 123, identifier: "booksd", pid: 4242)
        #expect(
            line
                == "2026-11-30T08:00:00.123Z booksd[4242] warning: file shrank\\nbadly "
                + "books_file=\"/srv/my books.txt\" books_seq=7\n"
        )
        #expect(StderrLogBackend.timestamp(seconds: 0, milliseconds: 5) == "1970-01-01T00:00:00.005Z")
    }

    @Test func stderrBackendWritesOneLinePerRecord() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let backend = StderrLogBackend(identifier: "t", fileDescriptor: fds[1])
        backend.write(level: .info, message: "hello", fields: ["K": "v"])
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buffer, buffer.count)
        let text = String(decoding: buffer[0..<max(n, 0)], as: UTF8.self)
        #expect(text.hasSuffix(" t[\(getpid())] info: hello k=v\n"))
        #expect(text.count == "2026-11-30T08:00:00.123Z".count + " t[\(getpid())] info: hello k=v\n".count)
    }

    @Test func levelFilteringAndRuntimeChange() {
        let backend = RecordingBackend()
        let logger = Logger(backend: backend, level: .notice)
        let copy = logger
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        #expect(backend.messages == ["n", "w", "e"])
        copy.setLevel(.debug)
        #expect(logger.level == .debug)
        logger.debug("d2", ["BOOKS_SEQ": "1"])
        #expect(backend.messages.last == "d2")
        logger.setLevel(.error)
        var evaluated = false
        logger.warning(
            {
                evaluated = true
                return "x"
            }())
        #expect(!evaluated)
    }

    @Test func concurrentLevelChanges() async {
        let backend = RecordingBackend()
        let logger = Logger(backend: backend, level: .info)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    for j in 0..<200 {
                        logger.setLevel(LogLevel.allCases[(i + j) % 5])
                        logger.error("e")
                    }
                }
            }
        }
        #expect(backend.messages.count == 1600)
    }

    @Test func journalEntries() {
        let entries = JournalLogBackend.journalEntries(
            level: .error, message: "boom", fields: ["books_file": "/a", "PRIORITY": "1", "1x": "y", "a-b": "c"],
            identifier: "booksd")
        #expect(
            entries == ["MESSAGE=boom", "PRIORITY=3", "SYSLOG_IDENTIFIER=booksd", "A_B=c", "BOOKS_FILE=/a", "F1X=y"])
        #expect(JournalLogBackend.journalFieldName("_SYSTEMD_UNIT") == "F_SYSTEMD_UNIT")
        #expect(LogLevel.allCases.map(\.syslogPriority) == [7, 6, 5, 4, 3])
    }

    @Test func destinationDetection() {
        #expect(LogDestination.detect(environment: [:], stderrIdentity: (1, 2)) == .stderr)
        // Under systemd with StandardError=file:… (INVOCATION_ID set, no JOURNAL_STREAM): plain stderr.
        #expect(LogDestination.detect(environment: ["INVOCATION_ID": "abc"], stderrIdentity: nil) == .stderr)
        #expect(LogDestination.detect(environment: ["INVOCATION_ID": "abc"], stderrIdentity: (8, 1)) == .stderr)
        #expect(
            LogDestination.detect(
                environment: ["INVOCATION_ID": "abc", "JOURNAL_STREAM": "8:1"], stderrIdentity: (8, 1)) == .journal)
        #expect(
            LogDestination.detect(environment: ["JOURNAL_STREAM": "8:12345"], stderrIdentity: (8, 12345)) == .journal)
        #expect(LogDestination.detect(environment: ["JOURNAL_STREAM": "8:12345"], stderrIdentity: (8, 999)) == .stderr)
        #expect(
            LogDestination.detect(environment: ["JOURNAL_STREAM": "garbage"], stderrIdentity: (8, 12345)) == .stderr)
    }

    @Test func metadataBoundOnceGoesWithEveryRecordOfThatCopy() {
        let backend = RecordingBackend()
        let logger = Logger(backend: backend, level: .info)
        var store = logger.bound(["BOOKS_STORE": "work", "BOOKS_FILE": "/w.txt"])
        store[metadataKey: "BOOKS_EXTRA"] = "x"
        store.notice("bound")
        store.notice("with seq", ["BOOKS_SEQ": "3", "BOOKS_FILE": "/call.txt"])
        logger.notice("plain")
        let fields = backend.records.withLock { $0.map(\.2) }
        #expect(fields[0] == ["BOOKS_STORE": "work", "BOOKS_FILE": "/w.txt", "BOOKS_EXTRA": "x"])
        // A field passed on the call wins over a bound one; the bound ones stay with the copy.
        #expect(fields[1] == ["BOOKS_STORE": "work", "BOOKS_FILE": "/call.txt", "BOOKS_EXTRA": "x", "BOOKS_SEQ": "3"])
        #expect(fields[2] == [:])
        #expect(store[metadataKey: "BOOKS_STORE"] == "work" && logger[metadataKey: "BOOKS_STORE"] == nil)
    }
}
