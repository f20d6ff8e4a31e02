import BooksCore
import Glibc
import Testing

@testable import BooksMachines

/// A read that fails with an I/O error is retried by the machine itself (I/O faults):
/// no watcher event may come to read the file again.
@Suite struct ReconcilerRereadTests {
    @Test func aFailedReadIsRetriedUntilItSucceedsAndNeverDeletes() {
        var driver = ReconcilerDriver(ReconcilerStateMachineTests.two)
        driver.edit("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n")
        driver.readError = .system(path: "books.txt", operation: "read", errno: EIO)
        driver.run(.fileEvent(.removed))
        #expect(driver.machine.fileState == .unavailable(driver.readError!.description))
        #expect(driver.timers == [.reread])
        #expect(driver.broadcasts.isEmpty)
        #expect(driver.machine.context.bookCount == 2)

        // Still failing: the next re-read is scheduled (once), the books stay.
        var fired = driver.fireReread()
        #expect(fired)
        #expect(driver.timers == [.reread])
        #expect(driver.machine.context.bookCount == 2)

        driver.readError = nil
        fired = driver.fireReread()
        #expect(fired)
        #expect(driver.machine.fileState == .present)
        #expect(driver.timers.isEmpty)
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.first?.changes.deleted.isEmpty == true)
        #expect(driver.broadcasts.first?.changes.inserted.map(\.id) == ["3"])
    }

    @Test func theDelayBacksOffAndIsCapped() {
        var machine = ReconcilerStateMachine(configuration: .init(path: "books.txt"), epoch: "E")
        let error = BookFileError.system(path: "books.txt", operation: "open", errno: EIO)
        var delays: [Duration] = []
        for _ in 0..<10 {
            for case .scheduleReread(let delay) in machine.scheduleReread(after: error) { delays.append(delay) }
            let again = machine.scheduleReread(after: error)
            #expect(again.isEmpty)  // one at a time
            machine.rereadPending = false
        }
        #expect(delays.first == .milliseconds(50))
        #expect(delays.dropFirst().first == .milliseconds(100))
        #expect(delays.last == ReconcilerStateMachine.rereadMaximumDelay)
    }

    @Test func aFileThatIsUnusableForWhatItIsIsNotPolled() {
        var driver = ReconcilerDriver(ReconcilerStateMachineTests.two)
        driver.readError = .notARegularFile(path: "books.txt", kind: "FIFO")
        driver.run(.fileEvent(.created))
        #expect(driver.machine.fileState != .present)
        #expect(driver.timers.isEmpty)
    }
}
