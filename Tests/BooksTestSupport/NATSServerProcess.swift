import BooksPlatform
import Glibc

/// A real `nats-server` (Debian package `nats-server`) on a loopback port, JetStream storage in a
/// scratch directory, for tests and benchmarks. `kill()` and `start()` again keep the port and the
/// storage, so a restart finds its streams.
public final class NATSServerProcess: @unchecked Sendable {
    /// The port it listens on. Assigned in `init` only (a second pick when the first was taken
    /// meanwhile), constant afterwards.
    public private(set) var port: Int32
    /// JetStream's storage directory (`-sd`).
    public let storeDirectory: String
    /// Whether JetStream is on (`-js`).
    public let jetStream: Bool
    /// A configuration file (`-c`), e.g. with users and permissions; nil: none.
    public let configFile: String?
    /// More arguments (cluster options).
    public let extraArguments: [String]
    /// Where its output goes.
    public let logPath: String
    private var process: ChildProcess?
    /// The scratch directory made for it when none was given (removed with the object).
    private let scratch: TemporaryDirectory?

    /// `nats://127.0.0.1:<port>`.
    public var url: String { "nats://127.0.0.1:\(port)" }

    /// Whether `nats-server` is installed (tests that need it are skipped otherwise).
    public static var isInstalled: Bool {
        let candidates: [String] = ["/usr/bin/nats-server", "/usr/sbin/nats-server", "/usr/local/bin/nats-server"]
        return candidates.contains { access($0, X_OK) == 0 }
    }

    /// Starts a server with its storage under `directory` (nil: a scratch directory of its own);
    /// `port` nil picks a free one.
    public init(
        directory: String? = nil, port: Int32? = nil, jetStream: Bool = true, configFile: String? = nil,
        extraArguments: [String] = []
    ) throws {
        self.configFile = configFile
        self.extraArguments = extraArguments
        scratch = directory == nil ? try TemporaryDirectory(prefix: "nats-server") : nil
        let directory = directory ?? scratch!.path
        mkdir(directory, 0o755)
        self.port = port ?? Self.freePort()
        self.storeDirectory = directory + "/nats-js"
        self.logPath = directory + "/nats-server.log"
        self.jetStream = jetStream
        var attempt = 1
        while true {
            do {
                try start()
                return
            } catch {
                // A port picked here can be taken by someone else before nats-server binds it:
                // pick another (a port the caller chose is kept, and the error stands).
                let taken = (TestFiles.readText(logPath) ?? "").contains("address already in use")
                guard port == nil, taken, attempt < 5 else { throw error }
                attempt += 1
                self.port = Self.freePort()
            }
        }
    }

    deinit { _ = process?.kill() }

    /// Starts (again) and waits until the port accepts connections.
    public func start(timeout: Double = 30) throws {
        var argv = ["nats-server", "-a", "127.0.0.1", "-p", "\(port)"]
        if let configFile { argv += ["-c", configFile] }
        if jetStream { argv += ["-js", "-sd", storeDirectory] }
        argv += extraArguments
        process = try ChildProcess.spawn(argv, stdout: .appendFile(logPath), stderr: .sameAsStdout)
        guard eventuallyBlocking(timeout: timeout, interval: 0.02, { Self.accepts(port: port) }) else {
            throw TestSupportError("nats-server did not listen on \(port): \(TestFiles.readText(logPath) ?? "")")
        }
    }

    /// A JetStream cluster of `size` servers named `n1`, `n2`, … (cluster `books`), each with its
    /// own storage under `directory`, routed to each other on loopback ports.
    public static func cluster(size: Int = 3, directory: String) throws -> [NATSServerProcess] {
        let routes = (0..<size).map { _ in freePort() }
        return try (0..<size).map { index in
            let others = routes.enumerated().filter { $0.offset != index }.map { "nats://127.0.0.1:\($0.element)" }
            return try NATSServerProcess(
                directory: directory + "/n\(index + 1)", jetStream: true,
                extraArguments: [
                    "-n", "n\(index + 1)", "--cluster_name", "books", "--cluster", "nats://127.0.0.1:\(routes[index])",
                    "--routes", others.joined(separator: ","),
                ])
        }
    }

    /// SIGKILL and reap (a crash); the storage stays.
    public func kill() {
        _ = process?.kill()
        process = nil
    }

    /// True while the process runs.
    public var isRunning: Bool { process?.isRunning ?? false }

    /// A TCP port nobody listens on right now, below the kernel's ephemeral range (so no
    /// outgoing connection of another test takes it as its local port before the server binds
    /// it), and not handed out before by this process.
    public static func freePort() -> Int32 {
        let (low, high) = portBlock
        let span = high - low + 1
        for _ in 0..<span {
            let candidate = nextPort.withLock { next -> Int32 in
                defer { next = (next + 1) % span }
                return low + next
            }
            if canBind(port: candidate) { return candidate }
        }
        return low
    }

    /// The ports ``freePort()`` hands out: 12,000 below the low end of
    /// `/proc/sys/net/ipv4/ip_local_port_range` (32768 by default: 20768-32767).
    static let portBlock: (Int32, Int32) = {
        let range = (TestFiles.readText("/proc/sys/net/ipv4/ip_local_port_range") ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int32($0) }
        let ephemeralLow = range.first ?? 32768
        return (max(1025, ephemeralLow - 12_000), max(1025, ephemeralLow - 1))
    }()

    /// Where the next pick starts: a per-process offset, so parallel test processes spread out.
    static let nextPort: Locked<Int32> = {
        let span = portBlock.1 - portBlock.0 + 1
        let seed = UInt64(UInt32(getpid())) &* 2_654_435_761 &+ MonotonicClock.nanoseconds()
        return Locked(Int32(seed % UInt64(span)))
    }()

    /// Whether a listening socket could bind `port` on every address now.
    static func canBind(port: Int32) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: UInt16(port))
        address.sin_addr.s_addr = 0  // INADDR_ANY: taken on any address counts
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(port: Int32) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: UInt16(port))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
