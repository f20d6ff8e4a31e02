import BooksTestSupport
import Testing

/// NATS costs booksd a few threads, however many stores it serves: the publishers share at most
/// 4 `booksd-nats` threads and the library delivers every subscription's messages (each store's
/// api requests and publish acknowledgements) on its one shared delivery thread.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSThreadCountTests {
    @Test func fortyOneStoresPublishOnAFewThreads() async throws {
        let server = try NATSServerProcess()
        let scratch = try TemporaryDirectory(prefix: "natsthreads")
        let lists = scratch.makeDirectory("lists")
        let folderStores = 40
        for index in 0..<folderStores {
            try TestFiles.write("\(index + 1)|Book \(index)|Author\n", to: "\(lists)/s\(index).txt")
        }
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Frank Herbert"], settings: ["nats_url=\(server.url)"], arguments: ["--dir", lists])
        defer { daemon.stop() }
        let pid = try #require(daemon.daemon?.pid)
        // Every store (the folder's and `default`) has its stream and bucket and published its
        // snapshot marker.
        let stores = folderStores + 1
        let published = await eventually(timeout: 90, interval: 0.2) {
            daemon.log.components(separatedBy: "snapshot marker at seq").count - 1 >= stores
        }
        #expect(published, "\(daemon.log.suffix(3000))")
        // One thread per store (or per subscription) would be 41 and more; the dispatch pool's
        // threads from the start-up burst leave within seconds.
        var threads = 0
        let few = await eventually(timeout: 30, interval: 0.2) {
            threads = TestFiles.names(in: "/proc/\(pid)/task").count
            return threads <= 30
        }
        let names = TestFiles.names(in: "/proc/\(pid)/task").compactMap { task in
            TestFiles.readText("/proc/\(pid)/task/\(task)/comm")?.split(separator: "\n").first.map(String.init)
        }
        let byName = Dictionary(grouping: names, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key }
        #expect(few, "booksd runs \(threads) threads for \(stores) stores with NATS on: \(byName)")
        print("booksd with \(stores) stores and NATS on: \(threads) threads")
    }
}
