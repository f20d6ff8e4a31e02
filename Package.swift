// swift-tools-version:6.0
import PackageDescription

/// BookSync: a Linux daemon that keeps a hand-editable `books.txt` live for subscribers.
///
/// Layout (one job per module):
/// - `BooksCore`      — file format, record-level diff, in-memory context, queries. No I/O.
/// - `BooksStore`     — the `DataStore` idea: text and JSON stores with atomic, durable saves.
/// - `BooksProtocol`  — the newline-delimited JSON wire protocol shared by daemon and clients.
/// - `BooksMachines`  — the pure state machines (reconciler, connection, folder, NATS publisher, service group).
/// - `BooksDaemon`    — watcher, socket server, configuration, systemd glue: the machines' I/O shell.
/// - `BooksClient`    — the Swift client library (`AsyncStream`s of change sets and live queries).
/// - `booksd`, `booksctl` — thin executables.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "BookSync",
    products: [
        .library(name: "BooksCore", targets: ["BooksCore"]),
        .library(name: "BooksClient", targets: ["BooksClient"]),
        .executable(name: "booksd", targets: ["booksd"]),
        .executable(name: "booksctl", targets: ["booksctl"]),
    ],
    targets: [
        .systemLibrary(name: "CInotifyTools", path: "Sources/CInotifyTools"),
        .systemLibrary(
            name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CBooksSupport", path: "Sources/CBooksSupport"),
        // libnats (Debian libnats-dev) is not linked: Sources/CNats/shim.h loads it with dlopen on
        // first use (scripts/generate-nats-shim.py), so processes that never use NATS do not map it.
        .systemLibrary(name: "CNats", path: "Sources/CNats"),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),

        .target(name: "BooksCore", dependencies: ["CBooksSupport"], swiftSettings: strict),
        .target(name: "BooksPlatform", dependencies: ["CLinux"], swiftSettings: strict),
        .target(name: "BooksStore", dependencies: ["BooksCore", "BooksPlatform", "CLinux"], swiftSettings: strict),
        .target(name: "BooksProtocol", dependencies: ["BooksCore"], swiftSettings: strict),
        .target(name: "BooksNATS", dependencies: ["CNats", "BooksPlatform"], swiftSettings: strict),
        // The pure state machines (reconciler, connection, store folder, NATS publisher) and their
        // values: they return actions and do no I/O. Only BooksCore and BooksProtocol, never an I/O
        // module (BooksStore, BooksNATS, BooksPlatform, a C module): docs/ARCHITECTURE.md.
        .target(name: "BooksMachines", dependencies: ["BooksCore", "BooksProtocol"], swiftSettings: strict),
        // The HTTP API's pure part: routes, security checks, status codes, SSE streams, the page.
        .target(name: "BooksHTTP", dependencies: ["BooksCore", "BooksProtocol"], swiftSettings: strict),
        .target(
            name: "BooksDaemon",
            dependencies: [
                "BooksCore", "BooksStore", "BooksProtocol", "BooksPlatform", "BooksNATS", "CInotifyTools", "CSystemd",
                "CLinux", "BooksClient", "BooksHTTP", "CMicroHTTPD", "BooksMachines",
            ],
            swiftSettings: strict),
        .target(
            name: "BooksClient", dependencies: ["BooksCore", "BooksProtocol", "BooksPlatform", "BooksNATS", "CLinux"],
            swiftSettings: strict),
        .executableTarget(name: "booksd", dependencies: ["BooksDaemon"], swiftSettings: strict),
        .executableTarget(
            name: "booksctl", dependencies: ["BooksClient", "BooksNATS", "BooksPlatform"], swiftSettings: strict),
        .executableTarget(
            name: "BooksImporterExample", dependencies: ["BooksClient", "BooksCore", "BooksProtocol"],
            path: "Examples/Importer", swiftSettings: strict),
        .executableTarget(
            name: "BooksBenchmarks",
            dependencies: [
                "BooksCore", "BooksStore", "BooksClient", "BooksNATS", "BooksPlatform", "BooksTestSupport", "CLinux",
            ],
            path: "Benchmarks/BooksBenchmarks", swiftSettings: strict),

        // Examples/LiveList: a live terminal list, `import BooksClient` only (built and run by the tests).
        .executableTarget(
            name: "LiveList", dependencies: ["BooksClient"], path: "Examples/LiveList", swiftSettings: strict),

        // One test-support layer for every test target and the benchmarks (no XCTest/Testing, so
        // the benchmark executable links it): temporary directories, SplitMix64, child processes,
        // the booksd launcher, the raw line client and `eventually`.
        .target(
            name: "BooksTestSupport", dependencies: ["BooksCore", "BooksPlatform", "BooksProtocol", "CLinux"],
            path: "Tests/BooksTestSupport", swiftSettings: strict),

        .testTarget(name: "BooksTestSupportTests", dependencies: ["BooksTestSupport"], swiftSettings: strict),
        .testTarget(name: "BooksCoreTests", dependencies: ["BooksCore", "BooksTestSupport"], swiftSettings: strict),
        .testTarget(name: "BooksPlatformTests", dependencies: ["BooksPlatform"], swiftSettings: strict),
        .testTarget(name: "BooksStoreTests", dependencies: ["BooksStore", "BooksTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BooksProtocolTests", dependencies: ["BooksProtocol", "BooksTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BooksHTTPTests", dependencies: ["BooksHTTP", "BooksProtocol", "BooksCore"], swiftSettings: strict),
        .testTarget(
            name: "BooksMachinesTests", dependencies: ["BooksMachines", "BooksTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BooksDaemonTests", dependencies: ["BooksDaemon", "BooksPlatform", "BooksTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "BooksClientTests", dependencies: ["BooksClient", "BooksPlatform", "BooksTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "BooksctlTests",
            dependencies: ["booksctl", "BooksClient", "BooksCore", "BooksNATS", "BooksProtocol", "BooksTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "BooksBenchmarksTests", dependencies: ["BooksBenchmarks", "BooksCore", "BooksTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "LiveList",
                "BooksClient", "BooksCore", "BooksNATS", "BooksPlatform", "BooksProtocol", "BooksStore",
                "BooksTestSupport", "booksd", "booksctl", "BooksImporterExample",
            ],
            swiftSettings: strict),
    ]
)
