/// The order in which a `ServiceGroup` starts and stops its services, as a pure machine: it takes
/// inputs (a service started, failed to start or stopped; a stop or reload was asked for) and
/// returns the actions to run, and does no I/O (no thread, clock or signal).
///
/// Services start one at a time in their order; once all are started the group is ready. A stop
/// (SIGTERM, SIGINT) stops the services in reverse order, one at a time, and finishes with exit
/// code 0; a service that fails to start stops the ones started before it, in reverse, and
/// finishes with exit code 1. A stop or reload asked for while the services start is kept until
/// they are all started; a second stop while stopping, and anything after the finish, is ignored.
public struct ServiceGroupMachine: Sendable, Equatable {
    /// What the group hears.
    public enum Input: Sendable, Equatable {
        /// Start the services.
        case begin
        /// Service `index` started.
        case started(Int)
        /// Service `index` failed to start.
        case failedToStart(Int)
        /// Service `index` stopped.
        case stopped(Int)
        /// A stop was asked for (by `signal`, e.g. SIGTERM).
        case stopRequested(signal: Int32)
        /// A configuration reload was asked for (SIGHUP).
        case reloadRequested
    }

    /// What the runner does, in the order returned.
    public enum Action: Sendable, Equatable {
        /// Start service `index`; answer `started` or `failedToStart`.
        case start(Int)
        /// Every service started: announce readiness.
        case ready
        /// Reload the configuration.
        case reload
        /// Service `index` failed to start: report it (the stops follow).
        case reportFailure(Int)
        /// A stop begins (announce it: `STOPPING=1`).
        case announceStop(signal: Int32)
        /// Stop service `index`; answer `stopped`.
        case stop(Int)
        /// Every started service stopped: the group ends with `exitCode`.
        case finish(exitCode: Int32)
    }

    /// Where the group is.
    public enum State: Sendable, Equatable {
        case idle
        /// Service `index` is starting; what was asked for meanwhile waits in `deferred`.
        case starting(index: Int, deferred: [Input])
        case running
        /// Service `index` is stopping; the group then ends with `exitCode`.
        case stopping(index: Int, exitCode: Int32)
        case finished(exitCode: Int32)
    }

    /// How many services the group has.
    public let count: Int
    /// Where the group is now.
    public private(set) var state: State = .idle

    /// A group of `count` services, not started.
    public init(count: Int) {
        self.count = count
    }

    /// Takes `input` and returns the actions it leads to.
    public mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.idle, .begin):
            return startNext(0, deferred: [])
        case (.starting(let index, let deferred), .started(let done)) where done == index:
            return startNext(index + 1, deferred: deferred)
        case (.starting(let index, _), .failedToStart(let failed)) where failed == index:
            return [.reportFailure(index)] + stopNext(index - 1, exitCode: 1)
        case (.starting(let index, let deferred), .stopRequested),
            (.starting(let index, let deferred), .reloadRequested):
            state = .starting(index: index, deferred: deferred + [input])
            return []
        case (.running, .reloadRequested):
            return [.reload]
        case (.running, .stopRequested(let signal)):
            return [.announceStop(signal: signal)] + stopNext(count - 1, exitCode: 0)
        case (.stopping(let index, let exitCode), .stopped(let done)) where done == index:
            return stopNext(index - 1, exitCode: exitCode)
        default:
            return []  // out of turn: a second stop, a reload while stopping, anything after the end
        }
    }

    private mutating func startNext(_ index: Int, deferred: [Input]) -> [Action] {
        if index < count {
            state = .starting(index: index, deferred: deferred)
            return [.start(index)]
        }
        state = .running
        var actions: [Action] = [.ready]
        for input in deferred { actions += handle(input) }
        return actions
    }

    private mutating func stopNext(_ index: Int, exitCode: Int32) -> [Action] {
        if index >= 0 {
            state = .stopping(index: index, exitCode: exitCode)
            return [.stop(index)]
        }
        state = .finished(exitCode: exitCode)
        return [.finish(exitCode: exitCode)]
    }
}
