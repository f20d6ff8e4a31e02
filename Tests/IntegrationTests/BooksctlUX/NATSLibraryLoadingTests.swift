import BooksTestSupport
import Glibc
import Testing

/// The NATS client library (libnats, and with it libssl and libcrypto) is loaded only by a
/// process that uses NATS: a plain `booksctl subscribe` and a booksd without `nats_url` do not map
/// it (their resident size is mostly the pages of the libraries they map).
@Suite("NATS library loaded only for NATS", .timeLimit(.minutes(2))) struct NATSLibraryLoadingTests {
    @Test("booksctl subscribe and booksd without NATS map no libnats, libssl or libcrypto")
    func plainSubscriberMapsNoNATSLibrary() async throws {
        let h = try await DaemonHarness("nolibnats", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = shellQuote(BuildProducts.booksctl)
        let daemonPID = try #require(h.daemon?.pid)
        let run = try await h.tools.must(
            """
            \(c) subscribe --json > ../sub.out & pid=$!
            until \(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            \(c) add 'Mapped' 'A' > /dev/null
            until grep -q Mapped ../sub.out; do sleep 0.05; done
            echo "booksctl: $(grep -cE 'libnats|libssl|libcrypto' /proc/$pid/maps)"
            echo "booksd: $(grep -cE 'libnats|libssl|libcrypto' /proc/\(daemonPID)/maps)"
            kill $pid; wait $pid 2>/dev/null; true
            """, timeout: 30)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("booksctl: 0"), "\(run)")
        #expect(lines.contains("booksd: 0"), "\(run)")
    }
}
