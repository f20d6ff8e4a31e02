// The durable history's write paths for the power-cut test: client writes
// and hand edits journaled, snapshots written while edits go on, and the clean stop.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// One step of a history scenario.
enum HistoryStep {
    /// A client write (acknowledged as `r1`, `r2`, …).
    case write(PowerCutStep)
    /// A hand edit: the file's text with `old` replaced by `new`, saved as `sed -i` does (a new
    /// file renamed over the book file, no sync), announced by a `ping` `e1`, `e2`, ….
    case handEdit(old: String, new: String)
}

/// A recorded write path of the saved history.
struct HistoryPowerCutScenario {
    /// For the report.
    var name: String
    var seed: [String]
    var steps: [HistoryStep]
    /// Whether an earlier run stopped cleanly left a saved history (else: the first start).
    var seeded = true
    /// Whether the recording ends with a clean stop (SIGTERM) instead of a kill.
    var cleanStop = false
    /// More environment for the recorded daemon.
    var environment: [String: String] = [:]
    /// How many snapshots the recording must have written (renamed into place) at least.
    var minimumSnapshots = 0

    /// Every history path (docs/RELIABILITY.md, "Power cuts").
    static let all: [HistoryPowerCutScenario] = [
        HistoryPowerCutScenario(
            name: "history: client writes and hand edits (journal appends)", seed: PowerCutScenario.seed(bytes: 600),
            steps: [
                .write(.insert([PowerCutScenario.book("n1")])),
                .handEdit(old: "Seed book number 2 ", new: "Hand edit 2 "),
                .write(.update([BookPatch(id: "s1", name: "Renamed")])),
                .handEdit(old: "Seed book number 3 ", new: "Hand edit 3 "),
            ]),
        HistoryPowerCutScenario(
            name: "history: first start, one update, clean stop (SIGTERM)", seed: PowerCutScenario.seed(bytes: 600),
            steps: [.write(.update([BookPatch(id: "s1", name: "Renamed")]))], seeded: false, cleanStop: true),
        HistoryPowerCutScenario(
            name: "history: snapshots written during edits (replay budget 2 records)",
            seed: PowerCutScenario.seed(bytes: 600),
            steps: [
                .write(.update([BookPatch(id: "s1", name: "Renamed")])),
                .handEdit(old: "Seed book number 2 ", new: "Hand edit 2 "),
                .write(.delete(["s3"])),
                .handEdit(old: "Seed book number 4 ", new: "Hand edit 4 "),
            ],
            environment: ["BOOKSD_TEST_REPLAY_BUDGET_BYTES": "8192"], minimumSnapshots: 2),
    ]
}

/// What the recording of a history scenario saw.
struct HistoryRecording {
    var recording: CrashStateRecorder.Recording
    /// The books after 0, 1, … steps (read from the file after each).
    var expected: [[String: Book]]
    /// The step (1-based) each client write's label acknowledged.
    var stepOfLabel: [String: Int]
    /// The epoch the recorded daemon served.
    var epoch: String
    /// Every change set the subscriber got, by seq.
    var changes: [UInt64: Event]
    /// The seq and versions at the end.
    var finalSeq: UInt64
    var finalVersions: [String: UInt64]

    /// The least step a state must have reached: the last client write acknowledged before the cut.
    func minimumStep(_ state: CrashState) -> Int {
        state.acknowledged.compactMap { stepOfLabel[$0] }.max() ?? 0
    }
}

extension HistoryPowerCutScenario {
    /// Labels a socket send: an acknowledged write `r…`, an edit announcement `e…`, or a change
    /// event `c<seq>` (the highest seq in the send).
    static func marker(_ bytes: [UInt8]) -> String? {
        if let write = ReliabilitySuite.PowerCutTests.acknowledgedWrite(bytes) { return write }
        let head = String(decoding: bytes.prefix(64), as: UTF8.self)
        if head.hasPrefix("{\"id\":\"e"), head.contains("\"ok\":true") {
            return String(head.dropFirst(7).prefix { $0 != "\"" })
        }
        let seqs = bytes.split(separator: UInt8(ascii: "\n")).compactMap { line -> UInt64? in
            guard let event = try? JSONDecoder().decode(Event.self, from: Data(line)), event.event == .change else {
                return nil
            }
            return event.seq
        }
        return seqs.max().map { "c\($0)" }
    }

    /// Runs the steps against booksd under strace, with a subscriber collecting the change sets.
    func record(book: String, dir: TemporaryDirectory) throws -> HistoryRecording {
        var options = DaemonOptions(file: book + "/books.txt", socket: dir.socket, logPath: dir.log)
        options.logLevel = "debug"
        options.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"].merging(environment) { $1 }
        let path = book + "/books.txt"
        var expected = [BookFile.books(TestFiles.readBytes(path) ?? [])]
        var stepOfLabel: [String: Int] = [:]
        var epoch = ""
        var changes: [UInt64: Event] = [:]
        var finalSeq: UInt64 = 0
        var finalVersions: [String: UInt64] = [:]
        let recording = try CrashStateRecorder.recordWithEdits(
            directory: book, options: options, tracePath: dir.path + "/trace", marker: Self.marker,
            terminate: cleanStop
        ) { _ -> [String: [InjectedEdit]] in
            let writer = try RequestClient(socket: dir.socket)
            defer { writer.close() }
            let subscriber = try RequestClient(socket: dir.socket)
            defer { subscriber.close() }
            let subscribed = try subscriber.request(Request(id: "s", op: .subscribe, snapshot: false))
            epoch = subscribed.result?.epoch ?? ""
            var injected: [String: [InjectedEdit]] = [:]
            var writes = 0
            var edits = 0
            for (index, step) in steps.enumerated() {
                let before = finalSeq
                switch step {
                case .write(let write):
                    try write.run(on: writer)
                    writes += 1
                    stepOfLabel["r\(writes)"] = index + 1
                case .handEdit(let old, let new):
                    edits += 1
                    let label = "e\(edits)"
                    guard try writer.request(Request(id: label, op: .ping)).ok else { throw TestSupportError("ping") }
                    let text = TestFiles.readText(path) ?? ""
                    guard text.contains(old) else { throw TestSupportError("\(name): no \(old) in the file") }
                    let bytes = Array(text.replacingOccurrences(of: old, with: new).utf8)
                    let temporary = ".books.txt.edit-\(edits)"
                    try TestFiles.replace(bytes, at: path, temporaryName: temporary)
                    injected[label] = [.replace(name: "books.txt", bytes: bytes, temporary: temporary)]
                }
                // Each step is one change set: wait for it (so the next step sees its journal record).
                try Self.collect(subscriber, into: &changes, through: before + 1)
                finalSeq = before + 1
                expected.append(BookFile.books(TestFiles.readBytes(path) ?? []))
            }
            finalVersions = try Self.versions(writer, ids: Array(expected.last!.keys))
            return injected
        }
        let snapshots = recording.recorded.operations.filter {
            let state = PublishedPage.directory
            return $0 == FileOperation.rename(from: state + "/snapshot.new", to: state + "/snapshot")
        }
        #expect(snapshots.count >= minimumSnapshots, "\(name): \(snapshots.count) snapshots written")
        return HistoryRecording(
            recording: recording, expected: expected, stepOfLabel: stepOfLabel, epoch: epoch, changes: changes,
            finalSeq: finalSeq, finalVersions: finalVersions)
    }

    /// Reads change events until one with `seq` arrived.
    static func collect(_ client: RequestClient, into changes: inout [UInt64: Event], through seq: UInt64) throws {
        let deadline = MonotonicClock.seconds() + 15
        while changes[seq] == nil {
            guard MonotonicClock.seconds() < deadline, let message = client.readMessage(timeout: 1) else {
                if MonotonicClock.seconds() < deadline { continue }
                throw TestSupportError("no change event with seq \(seq)")
            }
            if case .event(let event) = message {
                if event.event == .change { changes[event.seq] = event }
                if event.event == .resyncRequired { throw TestSupportError("resync required: \(event)") }
            }
        }
    }

    /// The versions of `ids` (one `get`).
    static func versions(_ client: RequestClient, ids: [String]) throws -> [String: UInt64] {
        let reply = try client.request(Request(id: "versions", op: .get, ids: ids))
        guard reply.ok, let books = reply.result?.books, let versions = reply.result?.versions else {
            throw TestSupportError("get failed: \(reply)")
        }
        return Dictionary(uniqueKeysWithValues: zip(books.map(\.id), versions))
    }
}
