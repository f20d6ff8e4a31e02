import BooksTestSupport
import Synchronization
import Testing

/// A clock the tests move by hand: `sleep` advances it by the requested seconds plus a lateness.
private final class ManualClock: Sendable {
    let time = Mutex(0.0)
    let lateness = Mutex(0.0)
    var now: @Sendable () -> Double { { self.time.withLock { $0 } } }
    var sleep: @Sendable (Double) async -> Void {
        { seconds in
            let late = self.lateness.withLock { $0 }
            self.time.withLock { $0 += seconds + late }
        }
    }
}

@Suite struct WaitDeadlineTests {
    @Test func punctualPausesEndTheWaitAtItsTimeout() async {
        let clock = ManualClock()
        var deadline = WaitDeadline(timeout: 1, now: clock.now, sleep: clock.sleep)
        var pauses = 0
        while !deadline.hasPassed {
            await deadline.pause(seconds: 0.1)
            pauses += 1
        }
        #expect((9...11).contains(pauses))
        #expect(deadline.starvedSeconds == 0)
    }

    @Test func aLatePauseMovesTheDeadlineByItsLatenessButNotBeyondTheTimeout() async {
        let clock = ManualClock()
        var deadline = WaitDeadline(timeout: 2, now: clock.now, sleep: clock.sleep)
        clock.lateness.withLock { $0 = 1.5 }  // one pause resumes 1.5 s late (the pool was busy)
        await deadline.pause(seconds: 0.1)
        #expect(!deadline.hasPassed)  // 1.6 s passed, 3.5 s allowed now
        #expect(deadline.starvedSeconds == 1.5)
        await deadline.pause(seconds: 0.1)  // late again: only 0.5 s more may be forgiven
        #expect(deadline.starvedSeconds == 2)
        clock.lateness.withLock { $0 = 0 }
        await deadline.pause(seconds: 0.7)  // 3.9 s of 4 s
        #expect(!deadline.hasPassed)
        await deadline.pause(seconds: 0.2)
        #expect(deadline.hasPassed)
    }

    @Test func latenessWithinTheGraceIsNotForgiven() async {
        let clock = ManualClock()
        var deadline = WaitDeadline(timeout: 1, grace: 0.5, now: clock.now, sleep: clock.sleep)
        clock.lateness.withLock { $0 = 0.4 }
        await deadline.pause(seconds: 0.2)
        await deadline.pause(seconds: 0.2)
        #expect(deadline.hasPassed)  // 1.2 s passed, none of it forgiven
        #expect(deadline.starvedSeconds == 0)
    }
}
