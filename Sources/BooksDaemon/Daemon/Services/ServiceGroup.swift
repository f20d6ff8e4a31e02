import BooksPlatform
import Dispatch
import Glibc

/// Runs `DaemonService`s in the order of a `ServiceGroupMachine`: starts them one by one on the
/// calling thread, then waits for signals (`post(signal:)`, from any thread) and, at SIGTERM or
/// SIGINT, stops them in reverse and returns the exit code. A service that fails to start stops
/// the ones started before it and `run` returns 1. Never calls `exit`.
public final class ServiceGroup: Sendable {
    /// What the group tells its owner.
    public struct Hooks: Sendable {
        /// Every service started.
        public var ready: @Sendable () -> Void = {}
        /// SIGHUP while running.
        public var reload: @Sendable () -> Void = {}
        /// A stop begins, asked for by this signal.
        public var stopping: @Sendable (Int32) -> Void = { _ in }
        /// The named service failed to start with this error (its predecessors stop next).
        public var failed: @Sendable (String, any Error) -> Void = { _, _ in }

        /// Hooks that do nothing (set the ones needed).
        public init() {}
    }

    /// The services, in start order.
    public let services: [any DaemonService]
    let hooks: Hooks
    private let inbox = Locked<[ServiceGroupMachine.Input]>([])
    private let wake = DispatchSemaphore(value: 0)

    /// A group of `services` (started in this order, stopped in reverse) telling `hooks`.
    public init(_ services: [any DaemonService], hooks: Hooks = Hooks()) {
        self.services = services
        self.hooks = hooks
    }

    /// Hands a signal to the group: SIGHUP asks for a reload, any other for a stop. Safe from any
    /// thread; a signal that arrives while the services start is handled once they all are.
    public func post(signal: Int32) {
        inbox.withLock { $0.append(signal == SIGHUP ? .reloadRequested : .stopRequested(signal: signal)) }
        wake.signal()
    }

    /// Starts the services and serves until stopped; returns the exit code (0 after a stop, 1
    /// when a service failed to start). Blocks the calling thread throughout.
    public func run() -> Int32 {
        var machine = ServiceGroupMachine(count: services.count)
        var actions = machine.handle(.begin)
        var failure: (any Error)?
        while true {
            while !actions.isEmpty {
                switch actions.removeFirst() {
                case .start(let index):
                    do {
                        try services[index].start()
                        actions += machine.handle(.started(index))
                    } catch {
                        failure = error
                        actions += machine.handle(.failedToStart(index))
                    }
                case .ready: hooks.ready()
                case .reload: hooks.reload()
                case .reportFailure(let index):
                    if let failure { hooks.failed(services[index].name, failure) }
                case .announceStop(let signal): hooks.stopping(signal)
                case .stop(let index):
                    services[index].stop()
                    actions += machine.handle(.stopped(index))
                case .finish(let exitCode): return exitCode
                }
            }
            wake.wait()
            for input in inbox.withLock({ inputs in
                defer { inputs.removeAll() }
                return inputs
            }) {
                actions += machine.handle(input)
            }
        }
    }
}
