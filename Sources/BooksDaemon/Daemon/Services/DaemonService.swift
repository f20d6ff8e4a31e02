/// A part of the daemon that starts and stops with it: the socket, the inotify hub, the stores,
/// the HTTP server, … (after swift-service-lifecycle's `Service`, without its async run).
///
/// A `ServiceGroup` starts its services in order and stops them in reverse: when `start()`
/// returns, the part serves; `stop()` is called once, only on a service whose `start()` returned,
/// and returns once the part has stopped. Neither may call `exit`.
public protocol DaemonService: Sendable {
    /// The name of the part, for logs ("socket", "inotify hub", …).
    var name: String { get }
    /// Starts the part; returns once it serves. A throw stops the services started before it.
    func start() throws
    /// Stops the part; returns once it has stopped (pending work finished, threads joined).
    func stop()
}

/// A `DaemonService` made of two closures, for the parts whose start and stop are a few calls.
public struct ServiceStep: DaemonService {
    public let name: String
    let starting: @Sendable () throws -> Void
    let stopping: @Sendable () -> Void

    /// A service named `name` that runs `start` to start and `stop` to stop.
    public init(
        _ name: String, start: @escaping @Sendable () throws -> Void, stop: @escaping @Sendable () -> Void = {}
    ) {
        self.name = name
        self.starting = start
        self.stopping = stop
    }

    public func start() throws { try starting() }
    public func stop() { stopping() }
}
