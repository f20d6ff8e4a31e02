import BooksClient
import BooksCore
import Testing

@testable import booksctl

/// `subscribe --exec` keeps every variable under the kernel's per-string limit and never counts a
/// run whose command could not be started.
@Suite struct ExecEnvironmentTests {
    static let formatter = CursorAndExecTests.formatter
    /// Linux's limit on one `NAME=value` string (`MAX_ARG_STRLEN`): a longer one fails with E2BIG.
    static let kernelLimit = 128 * 1024

    static func payload(_ seq: UInt64, _ books: [Book]) -> ChangeSetPayload {
        ChangeSetPayload(CursorAndExecTests.update(seq, inserted: books), formatter: formatter)
    }

    @Test func aLongNameIsCutWithAMarkerAndFlagged() {
        let name = String(repeating: "n", count: 200_000) + "é"
        let env = Dictionary(
            uniqueKeysWithValues: Self.payload(1, [Book(id: "a", name: name, author: "x")]).environment)
        let value = env["BOOKS_NAME"] ?? ""
        #expect(value.utf8.count <= ExecEnvironment.maxValueBytes)
        #expect(value.hasSuffix(ExecEnvironment.marker) && value.hasPrefix("nnnn"))
        #expect(env["BOOKS_TRUNCATED"] == "1")
        #expect(env["BOOKS_AUTHOR"] == "x" && env["BOOKS_IDS"] == "a")
        #expect(
            Self.payload(1, [Book(id: "a", name: "short", author: "x")]).environment.contains {
                $0 == ("BOOKS_TRUNCATED", "0")
            })
    }

    @Test func manyLongIdsStayUnderTheKernelLimitWholeIdsOnly() {
        let books = (0..<1000).map { Book(id: String(repeating: "i", count: 150) + String($0), name: "n", author: "a") }
        let payload = Self.payload(1, books)
        let env = Dictionary(uniqueKeysWithValues: payload.environment)
        let ids = env["BOOKS_IDS"] ?? ""
        #expect(ids.utf8.count <= ExecEnvironment.maxIDsBytes)
        #expect(ids.split(separator: "\n").allSatisfy { books.map(\.id).contains(String($0)) }, "no id is cut")
        #expect(ids.split(separator: "\n").count > 100)
        #expect(env["BOOKS_TRUNCATED"] == "1")
        #expect(env["BOOKS_INSERTED"] == "1000")
        #expect(payload.json.contains(books[999].id), "stdin has every id")
        for (name, value) in payload.environment { #expect(name.utf8.count + 1 + value.utf8.count < Self.kernelLimit) }
        let short = (0..<1001).map { Book(id: "b\($0)", name: "n", author: "a") }
        let capped = Dictionary(uniqueKeysWithValues: Self.payload(1, short).environment)
        #expect(capped["BOOKS_IDS"]?.split(separator: "\n").count == ExecEnvironment.maxIDs)
        #expect(capped["BOOKS_TRUNCATED"] == "1")
    }

    @Test func aRunThatCouldNotStartIsRetriedThenGivenUpNeverSkipped() {
        let first = Self.payload(1, [Book(id: "a", name: "A", author: "x")])
        let second = Self.payload(2, [Book(id: "b", name: "B", author: "x")])
        var queue = ExecQueue(coalesce: false)
        queue.enqueue(first)
        queue.enqueue(second)
        let run = queue.next()
        #expect(run == first)
        #expect(queue.notStarted(first) == .after(milliseconds: 100))
        #expect(queue.next() == first, "the same change set again, not the next one")
        #expect(queue.notStarted(first) == .after(milliseconds: 500))
        #expect(queue.next() == first)
        queue.ran()
        #expect(queue.next() == second)
        for delay in ExecQueue.retryDelaysMilliseconds {
            #expect(queue.notStarted(second) == .after(milliseconds: delay))
            #expect(queue.next() == second)
        }
        #expect(queue.notStarted(second) == .giveUp(attempts: 4))
        #expect(queue.pending == [second], "given up, it is still waiting: nothing moved past it")
    }
}
