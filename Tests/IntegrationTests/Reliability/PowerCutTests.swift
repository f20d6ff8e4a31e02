// Power cuts (docs/RELIABILITY.md): every state ext4 (data=ordered) may leave the book directory in when
// the power fails during a write path, built from a recording of the real daemon's file-system
// operations (ALICE-style, `BooksTestSupport/CrashStates`), and the real booksd started on each.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

@testable import BooksStore

extension ReliabilitySuite {
    @Suite(.serialized)
    struct PowerCutTests {
        static let decoy = BookFile.render(["decoy|Planted decoy|Nobody"])

        @Test(.enabled(if: CrashStateRecorder.isAvailable, "strace is not installed"))
        func everyCrashStateOfEveryWritePathKeepsAcknowledgedWrites() throws {
            var report: [String] = []
            for scenario in PowerCutScenario.all {
                report.append(try Self.check(scenario))
            }
            print("[reliability] power cut states per path:\n" + report.joined(separator: "\n"))
        }

        /// Records `scenario`, enumerates its crash states and checks booksd on each; one line for
        /// the report.
        static func check(_ scenario: PowerCutScenario) throws -> String {
            let dir = TemporaryDirectory.scratch("power")
            let book = dir.path + "/book"
            mkdir(book, 0o755)
            try TestFiles.write(BookFile.render(scenario.seed), to: book + "/books.txt")
            try seedHistory(book: book, dir: dir)
            try scenario.plant?(book)
            let recording = try record(scenario, book: book, dir: dir)
            let enumerator = CrashStateEnumerator(
                initial: recording.initial, operations: recording.recorded.operations)
            let states = enumerator.states()
            let expected = scenario.expectedStates
            var recovered = 0
            var cut = 0
            for (n, state) in states.states.enumerated() {
                let outcome = try checkState(
                    state, number: n, name: scenario.name, recording: recording, expected: expected,
                    minimumStep: state.acknowledged.count, dir: dir)
                recovered += outcome.recoveredFiles
                cut += outcome.cutTornAppend ? 1 : 0
            }
            // The states reach what the path is about: more than the start, and for a torn append
            // (a block boundary crossed, or planted) a state start-up had to cut.
            #expect(states.states.count >= 3, "\(scenario.name): only \(states.states.count) states")
            if scenario.name.contains("across a block boundary") || scenario.name.contains("torn append") {
                #expect(cut >= 1, "\(scenario.name): no state with a torn append")
            }
            let operations = recording.recorded.operations
            return """
                  \(scenario.name): \(operations.filter { $0.isMetadata }.count) metadata + \
                \(operations.filter { if case .write = $0 { return true } else { return false } }.count) write \
                operations, \(states.crashPoints) crash points, \(states.generated) states generated, \
                \(states.states.count) distinct\(states.bounded ? " (bounded)" : ""); torn appends cut at start: \
                \(cut); versions kept in recovery files (besides the decoy): \(recovered)
                """
        }

        /// A saved history from an earlier run stopped cleanly (what a daemon that has run before
        /// finds in `.books.txt.history/`), so that the recording sees the history's steady-state
        /// writes (journal appends), not its first snapshot.
        static func seedHistory(book: String, dir: TemporaryDirectory) throws {
            let daemon = try DaemonProcess(file: book + "/books.txt", socket: dir.socket, log: dir.log)
            #expect(daemon.stop() == 0, "the seeding run did not stop cleanly")
            unlink(dir.log)
        }

        /// Runs the scenario's writes against booksd under strace.
        static func record(
            _ scenario: PowerCutScenario, book: String, dir: TemporaryDirectory
        ) throws -> CrashStateRecorder.Recording {
            var options = DaemonOptions(file: book + "/books.txt", socket: dir.socket, logPath: dir.log)
            options.logLevel = "debug"
            options.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
            let recording = try CrashStateRecorder.record(
                directory: book, options: options, tracePath: dir.path + "/trace", marker: acknowledgedWrite
            ) { _ in
                let client = try RequestClient(socket: dir.socket)
                defer { client.close() }
                for step in scenario.steps { try step.run(on: client) }
            }
            let log = TestFiles.readText(dir.log) ?? ""
            #expect(
                log.contains(scenario.steps.isEmpty ? scenario.savedAs : "saved (\(scenario.savedAs))"),
                "\(scenario.name): the daemon did not take the \(scenario.savedAs) path")
            let acknowledged = recording.recorded.operations.filter {
                if case .output(.some) = $0 { return true } else { return false }
            }
            #expect(acknowledged.count == scenario.steps.count, "\(scenario.name): acknowledgements not recorded")
            return recording
        }

        /// The id of a write's `ok` reply (`r1`, `r2`, … in the order sent: `RequestClient`'s ids;
        /// `hello` is `h`).
        static func acknowledgedWrite(_ bytes: [UInt8]) -> String? {
            let text = String(decoding: bytes.prefix(64), as: UTF8.self)
            guard text.hasPrefix("{\"id\":\"r"), text.contains("\"ok\":true") else { return nil }
            return String(text.dropFirst(7).prefix { $0 != "\"" })
        }

        struct Outcome {
            var recoveredFiles: Int
            var cutTornAppend: Bool
        }

        /// Materialises `state` (`rewrite` may change a file's bytes further: see
        /// `DirectoryImage.materialize`), plants a decoy temporary file, starts booksd and checks it:
        /// the books served are `expected[j]` for some `j ≥ minimumStep`; then `inspect` checks more
        /// with the running daemon. `path` (default: a new directory per state) is where.
        static func checkState(
            _ state: CrashState, number: Int, name: String, recording: CrashStateRecorder.Recording,
            expected: [[String: Book]], minimumStep: Int, dir: TemporaryDirectory, at path: String? = nil,
            rewrite: (String, [UInt8]) -> [UInt8]? = { _, _ in nil },
            inspect: (RequestClient, DaemonProcess, String) throws -> Void = { _, _, _ in }
        ) throws -> Outcome {
            let root = path ?? dir.path + "/state-\(number)"
            TestFiles.removeTree(root)
            mkdir(root, 0o755)
            defer { if !TemporaryDirectory.keepRequested { TestFiles.removeTree(root) } }
            let traced = recording.recorded.realIdentities
            try state.image.materialize(at: root) { name, bytes, identities in
                let record = IntentRecordRewriter.rewrite(
                    name: name, bytes: bytes, traced: traced, materialized: identities)
                return record ?? rewrite(name, bytes)
            }
            try TestFiles.write(decoy, to: root + "/.books.txt.booksd-Pl4nt0", mode: 0o600)
            let context =
                "\(name), state \(number) (crash point \(state.crashPoint), journal prefix "
                + "\(state.journalPrefix), acknowledged \(state.acknowledged)): \(state.image.summary)"
            let socket = root + ".sock"
            let log = root + ".log"
            defer { unlink(log) }
            let daemon = try DaemonProcess(file: root + "/books.txt", socket: socket, log: log)
            defer { daemon.kill() }
            let client = try RequestClient(socket: socket)
            defer { client.close() }
            let served = try client.list().byID
            // Every acknowledged write is there, and the books are exactly the state after some
            // number of whole writes (a batch all or nothing; no leftover or decoy loaded).
            let valid = (minimumStep..<expected.count).contains { expected[$0] == served }
            #expect(valid, "\(context): served books are no valid state: \(served.keys.sorted())")
            let bytes = TestFiles.readBytes(root + "/books.txt") ?? []
            let document = BookFile.parse(bytes)
            #expect(document.badLineCount == 0, "\(context): \(document.badLineCount) bad lines after start")
            #expect(BookFile.books(bytes) == served, "\(context): served books differ from the file")
            let names = TestFiles.names(in: root)
            let temporaries = names.filter { $0.hasPrefix(".books.txt.booksd-") }
            #expect(temporaries.isEmpty, "\(context): temporary files left after start: \(temporaries)")
            let recovered = names.filter { $0.hasPrefix("books.txt.recovered-") }
            #expect(
                recovered.contains { TestFiles.readBytes(root + "/" + $0) == decoy },
                "\(context): the planted decoy was not kept in a recovery file")
            try inspect(client, daemon, context)
            return Outcome(
                recoveredFiles: recovered.count - 1,
                cutTornAppend: daemon.logText.contains("cut off"))
        }
    }
}

/// The append intent record names the book file's device and inode; in a materialised state the
/// book file has another inode, so the record is rewritten to name it (`AppendIntentRecord`'s own
/// encoding, checksum included). A record that does not decode is left as it is.
enum IntentRecordRewriter {
    static func rewrite(
        name: String, bytes: [UInt8], traced: [Int: RealFileIdentity], materialized: [Int: RealFileIdentity]
    ) -> [UInt8]? {
        guard name.hasSuffix("append-intent"), case .success(var record) = AppendIntentRecord.decode(bytes) else {
            return nil
        }
        let original = RealFileIdentity(device: record.device, inode: record.inode)
        guard let model = traced.first(where: { $0.value == original })?.key, let now = materialized[model] else {
            return nil
        }
        record.device = now.device
        record.inode = now.inode
        return record.encoded
    }
}
