import BooksClient
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// The client library as a new user meets it: `scripts/docs.sh` builds the package
/// `Tests/Fixtures/ClientConsumer` (outside BookSync's targets, depending on the `BooksClient`
/// product by path; it also compiles every code listing of the DocC catalog) and renders the
/// catalog with `docc --warnings-as-errors`; the site is then opened in headless Chromium.
/// Serialized: both tests use the fixture's one build directory.
@Suite("Client package from outside, and its DocC site", .serialized)
struct ClientDocsTests {
    static let root = BuildProducts.packageRoot
    /// Where `docs.sh` builds the fixture (kept between runs: the first build compiles the library).
    static let consumer = root + "/.build/client-consumer/debug/ClientConsumer"

    /// Where the tests render the site (beside the fixture's build).
    static let site = root + "/.build/client-consumer/site"
    /// `scripts/docs.sh` run once per test process: both tests need what it builds.
    static let docsRun = Task { try? await ChildProcess.run([root + "/scripts/docs.sh", site], timeout: 1800) }

    /// Waits for `scripts/docs.sh`; records its output if it failed.
    static func docsBuilt() async -> Bool {
        let result = await docsRun.value
        #expect(result?.status == 0, "scripts/docs.sh: \(result.map(String.init(describing:)) ?? "could not start")")
        return result?.status == 0
    }

    @Test("a program that only imports BooksClient builds, writes, and prints its feed readably")
    func consumerPackageBuildsAndRuns() async throws {
        guard await Self.docsBuilt() else { return }
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Frank Herbert"])
        defer { daemon.stop() }
        let run = try await ChildProcess.run([Self.consumer, daemon.socket], timeout: 60)
        #expect(run.status == 0, "\(run)")
        let lines = run.output.split(separator: "\n").map(String.init)
        // The feed of a plain subscription, then the three writes, each printed readably.
        #expect(lines.first?.hasPrefix("subscribed at ") == true, "\(run)")
        let changes = lines.filter { $0.hasPrefix("change ") }
        #expect(changes.count == 3, "\(run)")
        #expect(changes.allSatisfy { $0.contains(" (client, 20") && $0.contains("Z): ") }, "\(run)")
        #expect(run.output.contains(#"  + "The Dispossessed" by "Ursula K. Le Guin" ["#), "\(run)")
        #expect(run.output.contains(#""The Dispossessed" by "Ursula K. Le Guin" -> "The Left Hand of Darkness""#))
        #expect(run.output.contains(#"  - "The Left Hand of Darkness" by "Ursula K. Le Guin" ["#), "\(run)")
        #expect(try daemon.fileBooks() == [Book(id: "b1", name: "Dune", author: "Frank Herbert")])
    }

    @Test("the getting-started page renders in headless Chromium with its title and code listings")
    func gettingStartedRenders() async throws {
        let scratch = try TemporaryDirectory(prefix: "docsite")
        defer { scratch.remove() }
        guard await Self.docsBuilt() else { return }
        let site = Self.site
        // DocC pages are rendered by JavaScript: serve the static site and let Chromium run it.
        let serverLog = scratch.file("http.log")
        let server = try ChildProcess.spawn(
            ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", site],
            stdout: .appendFile(serverLog), stderr: .appendFile(scratch.file("http.err")))
        defer { server.terminate(grace: 5) }
        var port: String?
        _ = await eventually(timeout: 20) {
            port = (TestFiles.readText(serverLog) ?? "").firstMatch(of: /port (\d+)/).map { String($0.1) }
            return port != nil
        }
        let url = "http://127.0.0.1:\(try #require(port))/documentation/booksclient/gettingstarted"
        let page = try await ChildProcess.run(
            [
                "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + scratch.file("profile"),
                "--virtual-time-budget=15000", "--dump-dom", url,
            ], stderr: .devNull, timeout: 120)
        #expect(page.status == 0, "chromium: \(page)")
        let dom = page.output
        let title = dom.firstMatch(of: #/<h1[^>]*class="title"[^>]*>(.*?)</h1>/#).map {
            String($0.1).replacing(/<[^>]*>/, with: "")
        }
        #expect(
            title?.trimmingCharacters(in: .whitespacesAndNewlines) == "Getting Started with BooksClient",
            "DOM: \(dom.prefix(3000))")
        // The listings are highlighted span by span: compare their text.
        let listings = dom.matches(of: /<div[^>]*class="code-listing"[^>]*>(.*?)<\/pre>/.dotMatchesNewlines()).map {
            String($0.1).replacing(/<[^>]*>/, with: "").replacingOccurrences(of: "&gt;", with: ">")
        }
        #expect(listings.count == 3, "code listings rendered: \(listings)")
        #expect(listings.contains { $0.contains("let client = try await BooksClient.connect()") }, "\(listings)")
    }
}
