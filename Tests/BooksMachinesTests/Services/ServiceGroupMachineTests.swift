import Testing

@testable import BooksMachines

/// The order of a service group, on the pure machine: no service, thread or clock.
@Suite struct ServiceGroupMachineTests {
    /// Feeds the machine's own answers back (every start succeeds unless its index is in
    /// `failing`) until it waits for outside input; returns every action in order.
    static func drive(
        _ machine: inout ServiceGroupMachine, _ input: ServiceGroupMachine.Input, failing: Set<Int> = []
    ) -> [ServiceGroupMachine.Action] {
        var pending = machine.handle(input)
        var all: [ServiceGroupMachine.Action] = []
        while !pending.isEmpty {
            let action = pending.removeFirst()
            all.append(action)
            switch action {
            case .start(let index):
                pending += machine.handle(failing.contains(index) ? .failedToStart(index) : .started(index))
            case .stop(let index): pending += machine.handle(.stopped(index))
            default: break
            }
        }
        return all
    }

    @Test func startsInOrderThenIsReady() {
        var machine = ServiceGroupMachine(count: 3)
        #expect(Self.drive(&machine, .begin) == [.start(0), .start(1), .start(2), .ready])
        #expect(machine.state == .running)
    }

    @Test func aStopSignalStopsInReverseAndFinishesWithZero() {
        var machine = ServiceGroupMachine(count: 3)
        _ = Self.drive(&machine, .begin)
        #expect(
            Self.drive(&machine, .stopRequested(signal: 15))
                == [.announceStop(signal: 15), .stop(2), .stop(1), .stop(0), .finish(exitCode: 0)])
        #expect(machine.state == .finished(exitCode: 0))
        // Anything after the end is ignored.
        #expect(machine.handle(.stopRequested(signal: 2)).isEmpty)
        #expect(machine.handle(.reloadRequested).isEmpty)
    }

    @Test func aFailingStartStopsTheStartedOnesInReverseAndFinishesWithOne() {
        var machine = ServiceGroupMachine(count: 4)
        #expect(
            Self.drive(&machine, .begin, failing: [2])
                == [.start(0), .start(1), .start(2), .reportFailure(2), .stop(1), .stop(0), .finish(exitCode: 1)])
        var first = ServiceGroupMachine(count: 2)
        #expect(Self.drive(&first, .begin, failing: [0]) == [.start(0), .reportFailure(0), .finish(exitCode: 1)])
    }

    @Test func reloadWhileRunningAndSignalsDuringStartWaitUntilReady() {
        var machine = ServiceGroupMachine(count: 2)
        #expect(machine.handle(.begin) == [.start(0)])
        // Signals arrive while service 0 starts: kept until every service runs, then handled in order.
        #expect(machine.handle(.reloadRequested).isEmpty)
        #expect(machine.handle(.stopRequested(signal: 2)).isEmpty)
        #expect(machine.handle(.started(0)) == [.start(1)])
        #expect(
            Self.drive(&machine, .started(1))
                == [.ready, .reload, .announceStop(signal: 2), .stop(1), .stop(0), .finish(exitCode: 0)])
        var running = ServiceGroupMachine(count: 1)
        _ = Self.drive(&running, .begin)
        #expect(running.handle(.reloadRequested) == [.reload])
        #expect(running.state == .running)
    }

    @Test func aSecondStopWhileStoppingAndAnswersOutOfTurnAreIgnored() {
        var machine = ServiceGroupMachine(count: 2)
        _ = Self.drive(&machine, .begin)
        #expect(machine.handle(.stopRequested(signal: 15)) == [.announceStop(signal: 15), .stop(1)])
        #expect(machine.handle(.stopRequested(signal: 15)).isEmpty)
        #expect(machine.handle(.reloadRequested).isEmpty)
        #expect(machine.handle(.stopped(0)).isEmpty)  // service 1 is the one stopping
        #expect(machine.handle(.stopped(1)) == [.stop(0)])
        #expect(machine.handle(.stopped(0)) == [.finish(exitCode: 0)])
    }

    @Test func anEmptyGroupIsReadyAtOnceAndFinishesAtTheStop() {
        var machine = ServiceGroupMachine(count: 0)
        #expect(machine.handle(.begin) == [.ready])
        #expect(machine.handle(.stopRequested(signal: 15)) == [.announceStop(signal: 15), .finish(exitCode: 0)])
    }
}
