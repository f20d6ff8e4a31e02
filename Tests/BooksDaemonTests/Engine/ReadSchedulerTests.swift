import BooksProtocol
import Testing

@testable import BooksDaemon

/// The fair order of one store's reads between connections.
@Suite struct ReadSchedulerTests {
    let heavy = (1...10).map { ReplyTarget(.socket, $0) }
    let light = ReplyTarget(.socket, 99)

    @Test func oneJobAtATimeAndFIFOWithinAConnection() {
        var scheduler = ReadScheduler<Int>()
        let first = scheduler.enqueue(1, from: light)
        let second = scheduler.enqueue(2, from: light)
        #expect(first && !second)
        let a = scheduler.next(now: .zero)
        let moreAfterA = scheduler.finished(light, cost: .milliseconds(1), now: .milliseconds(1))
        let b = scheduler.next(now: .milliseconds(1))
        let moreAfterB = scheduler.finished(light, cost: .milliseconds(1), now: .milliseconds(2))
        #expect(a?.1 == 1 && moreAfterA && b?.1 == 2 && !moreAfterB)
        #expect(!scheduler.jobScheduled)
        let none = scheduler.next(now: .milliseconds(2))
        let again = scheduler.enqueue(3, from: light)
        #expect(none == nil && again)
    }

    /// Ten connections keep a costly read waiting each (150 ms of engine time); a cheap read
    /// sent every 20 ms waits for none of them but the one running, however long this goes on.
    @Test func aCheapReaderWaitsForNoCostlyOne() {
        var scheduler = ReadScheduler<String>()
        var now = Duration.zero
        for id in heavy { _ = scheduler.enqueue("heavy", from: id) }
        var costlyBeforeCheap: [Int] = []
        var costlyServed: [UInt64: Int] = [:]
        for _ in 0..<200 {
            guard let (running, _) = scheduler.next(now: now) else {
                Issue.record("nothing to run")
                return
            }
            _ = scheduler.enqueue("get", from: light)  // sent while the costly read runs
            now += .milliseconds(150)
            _ = scheduler.finished(running, cost: .milliseconds(150), now: now)
            costlyServed[running.number, default: 0] += 1
            _ = scheduler.enqueue("heavy", from: running)  // the costly client sends the next one
            var costly = 0
            while let (id, read) = scheduler.next(now: now) {
                let cost: Duration = read == "get" ? .microseconds(100) : .milliseconds(150)
                now += cost
                _ = scheduler.finished(id, cost: cost, now: now)
                if read == "get" { break }
                costly += 1
                costlyServed[id.number, default: 0] += 1
                _ = scheduler.enqueue("heavy", from: id)
            }
            costlyBeforeCheap.append(costly)
        }
        // In the first round the costly readers had not run yet: level with the cheap one.
        #expect(costlyBeforeCheap.dropFirst().allSatisfy { $0 == 0 }, "\(costlyBeforeCheap)")
        // The costly readers took turns.
        #expect(costlyServed.count == heavy.count && costlyServed.values.allSatisfy { (18...22).contains($0) })
    }

    /// Costly readers share the engine between them in turn.
    @Test func costlyReadersTakeTurns() {
        var scheduler = ReadScheduler<Int>()
        for id in heavy.prefix(3) {
            for n in 0..<4 { _ = scheduler.enqueue(n, from: id) }
        }
        var order: [UInt64] = []
        var now = Duration.zero
        while let (id, _) = scheduler.next(now: now) {
            order.append(id.number)
            now += .milliseconds(10)
            _ = scheduler.finished(id, cost: .milliseconds(10), now: now)
        }
        #expect(order.count == 12)
        for turn in 0..<4 { #expect(Set(order[(turn * 3)..<(turn * 3 + 3)]) == [1, 2, 3], "\(order)") }
    }

    @Test func aClosedConnectionsReadsAreDropped() {
        var scheduler = ReadScheduler<Int>()
        _ = scheduler.enqueue(1, from: heavy[0])
        _ = scheduler.enqueue(2, from: heavy[0])
        _ = scheduler.enqueue(3, from: light)
        let dropped = scheduler.drop(heavy[0])
        #expect(dropped == 2 && scheduler.count == 1)
        let next = scheduler.next(now: .zero)
        let more = scheduler.finished(light, cost: .zero, now: .zero)
        #expect(next?.1 == 3 && !more)
    }
}
