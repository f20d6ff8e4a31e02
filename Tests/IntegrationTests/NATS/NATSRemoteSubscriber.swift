import BooksTestSupport
import FoundationEssentials

/// `booksctl --nats URL subscribe --json --since 0` running as a child process, its lines
/// collected in a file: the remote subscriber of the NATS tests.
final class NATSRemoteSubscriber: @unchecked Sendable {
    struct Line: Decodable, Equatable {
        var seq: UInt64
        var kind: String
        var id: String
        var name: String
        var author: String
        var source: String
    }

    let process: ChildProcess
    let output: String

    init(url: String, directory: String) throws {
        output = directory + "/remote-subscriber.out"
        process = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--nats", url, "subscribe", "--json", "--since", "0"],
            stdout: .appendFile(output), stderr: .appendFile(directory + "/remote-subscriber.err"))
    }

    deinit { _ = process.kill() }

    /// The lines printed so far.
    var lines: [Line] {
        (TestFiles.readText(output) ?? "").split(separator: "\n").compactMap {
            try? JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
    }

    /// Waits until at least `count` lines were printed.
    @discardableResult
    func waitForLines(_ count: Int, timeout: Double = 15) async -> Bool {
        await eventually(timeout: timeout, interval: 0.02) { lines.count >= count }
    }
}
