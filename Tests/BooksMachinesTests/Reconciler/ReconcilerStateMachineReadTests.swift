import BooksCore
import BooksProtocol
import BooksTestSupport
import Testing

@testable import BooksMachines

/// Reads that could make the daemon work hard are bounded (CPU and memory).
@Suite struct ReconcilerStateMachineReadTests {
    func read(_ request: Request) -> Reply? {
        var driver = ReconcilerDriver(ReconcilerStateMachineTests.two)
        driver.run(.read(request, from: ReplyTarget(.socket, 1), ReadEnvironment()))
        return driver.replies.last?.1
    }

    @Test func getAnswersEachBookOnceAndCapsTheIDs() {
        var get = Request(id: "g", op: .get)
        get.ids = Array(repeating: "1", count: 500) + ["2", "1"]
        let reply = read(get)
        #expect(reply?.ok == true)
        #expect(reply?.result?.books?.map(\.id) == ["1", "2"])
        #expect(reply?.result?.versions?.count == 2)
        get.ids = Array(repeating: "1", count: ReconcilerStateMachine.maxIDsPerRequest + 1)
        #expect(read(get)?.error?.code == .limitExceeded)
    }

    @Test(arguments: [Request.Operation.list, .subscribe])
    func filtersOverTheLimitsAreRefused(op: Request.Operation) {
        var request = Request(id: "q", op: op)
        request.filter = BookFilter(Array(repeating: BookCondition(.name, .containsIgnoringCase, "a"), count: 65))
        #expect(read(request)?.error?.code == .limitExceeded)
        request.filter = BookFilter([BookCondition(.author, .contains, String(repeating: "x", count: 1025))])
        #expect(read(request)?.error?.message == "a filter value may have at most 1024 bytes, not 1025")
        request.filter = BookFilter(Array(repeating: BookCondition(.name, .containsIgnoringCase, "DUNE"), count: 64))
        #expect(read(request)?.ok == true)
    }
}

/// A read whose filter or sort runs past the budget fails with `query-too-expensive`.
@Suite struct ReconcilerStateMachineBudgetTests {
    @Test(arguments: [Request.Operation.list, .query, .subscribe])
    func aReadPastItsBudgetFailsWithATypedError(op: Request.Operation) {
        var driver = ReconcilerDriver(ReconcilerStateMachineTests.five)
        var request = Request(id: "q", op: op)
        request.filter = BookFilter([BookCondition(.name, .containsIgnoringCase, "e")])
        let clock = SteppingClock()
        driver.run(
            .read(request, from: ReplyTarget(.socket, 1), ReadEnvironment(queryBudget: clock.budget(milliseconds: 2))))
        let error = driver.replies.last?.1.error
        #expect(error?.code == .queryTooExpensive)
        #expect(error?.message.contains("having filtered 3 of 5 books") == true)
        #expect(driver.subscriptions.isEmpty)
        driver.run(
            .read(
                request, from: ReplyTarget(.socket, 1), ReadEnvironment(queryBudget: clock.budget(milliseconds: 60_000))
            )
        )
        #expect(driver.replies.last?.1.ok == true)
        #expect(driver.subscriptions.count == (op == .subscribe ? 1 : 0))
    }
}
