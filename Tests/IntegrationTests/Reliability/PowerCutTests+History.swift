// Power cuts × durable history: every crash state of the durable history's write paths, each started
// twice: as after a process crash (same boot: the page cache, so the `published` page with every
// traced write) and as after a power cut (another boot id in the journal header; the page as the
// crash-state model leaves it, `PublishedPage`).
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

extension ReliabilitySuite.PowerCutTests {
    @Test(.enabled(if: CrashStateRecorder.isAvailable, "strace is not installed"))
    func everyCrashStateOfTheSavedHistoryServesTheFileAndKeepsOrEndsItsEpoch() throws {
        var report: [String] = []
        for scenario in HistoryPowerCutScenario.all {
            report.append(try Self.check(scenario))
        }
        print("[reliability] power cut states per history path:\n" + report.joined(separator: "\n"))
    }

    /// Whether a state is read as after a process crash or after a power cut (a reboot).
    enum Interpretation: String {
        case processCrash = "process crash"
        case powerCut = "power cut"
    }

    /// Records a history scenario, enumerates its states and checks booksd on each (both
    /// interpretations); one line for the report.
    static func check(_ scenario: HistoryPowerCutScenario) throws -> String {
        let dir = TemporaryDirectory.scratch("power-history")
        let book = dir.path + "/book"
        mkdir(book, 0o755)
        try TestFiles.write(BookFile.render(scenario.seed), to: book + "/books.txt")
        if scenario.seeded { try seedHistory(book: book, dir: dir) }
        let history = try scenario.record(book: book, dir: dir)
        let recording = history.recording
        let operations = recording.recorded.operations
        let states = CrashStateEnumerator(initial: recording.initial, operations: operations).states()
        var starts = 0
        var continued: [Interpretation: Int] = [:]
        var number = 0
        // The state's saved history names the book file's path: states are built where it was.
        TestFiles.removeTree(book)
        // Before a clean stop began (the recorder's last `hello`), a power cut can only end the
        // epoch (the journal is not closed cleanly): those states are started as after a process
        // crash only; from the stop on, both ways.
        let stopBegan = operations.lastIndex { if case .output = $0 { true } else { false } } ?? 0
        #expect(!scenario.cleanStop || stopBegan > 0, "\(scenario.name): the clean stop was not recorded")
        var duringStop = 0
        for state in states.states {
            let running = scenario.cleanStop && state.crashPoint <= stopBegan
            duringStop += scenario.cleanStop && !running ? 1 : 0
            for interpretation in running ? [Interpretation.processCrash] : [.processCrash, .powerCut] {
                number += 1
                starts += 1
                let complete = scenario.cleanStop && state.crashPoint == operations.count
                // A process crash keeps the page cache: every write of the page up to the crash.
                let newest =
                    interpretation == .processCrash
                    ? PublishedPage.newest(at: state.crashPoint, operations: operations, initial: recording.initial)
                    : nil
                let page = (newest ?? state.image[PublishedPage.name]?.bytes).flatMap { PublishedPage.seq(of: $0) }
                _ = try checkState(
                    state, number: number, name: "\(scenario.name) [\(interpretation.rawValue)]",
                    recording: recording, expected: history.expected, minimumStep: history.minimumStep(state),
                    dir: dir, at: book,
                    rewrite: { name, bytes in
                        if name == PublishedPage.name, let newest { return newest }
                        if name == PublishedPage.directory + "/journal", interpretation == .powerCut {
                            return JournalBootRewriter.rewrite(bytes)
                        }
                        return nil
                    },
                    inspect: { client, daemon, context in
                        let kept = try checkHistory(
                            client: client, daemon: daemon, history: history, state: state,
                            interpretation: interpretation, stopCompleted: complete,
                            context: context + " [published page: seq \(page.map(String.init) ?? "none")]")
                        if kept { continued[interpretation, default: 0] += 1 }
                    })
            }
        }
        // What kill -9 can leave: everything up to a crash point.
        var killed: [String: Int] = [:]
        for (k, image) in killStates(initial: recording.initial, operations: operations) {
            number += 1
            let acknowledged = operations.prefix(k).compactMap { if case .output(let l?) = $0 { l } else { nil } }
            let state = CrashState(
                image: image, acknowledged: acknowledged, crashPoint: k, journalPrefix: operations.count)
            _ = try checkState(
                state, number: number, name: "\(scenario.name) [kill -9]", recording: recording,
                expected: history.expected, minimumStep: history.minimumStep(state), dir: dir, at: book,
                rewrite: { _, _ in nil },
                inspect: { client, daemon, context in
                    let kept = try checkHistory(
                        client: client, daemon: daemon, history: history, state: state,
                        interpretation: .processCrash, stopCompleted: false, context: context)
                    let line = daemon.logText.split(separator: "\n").last { $0.contains("new epoch: ") }
                    let reason = line.flatMap { $0.split(separator: "new epoch: ").last?.split(separator: "(").first }
                    let why = reason.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "?"
                    killed[kept ? "continued" : why, default: 0] += 1
                    // The windows where a kill costs the epoch (docs/RELIABILITY.md, guarantee 9).
                    #expect(
                        kept || killWindows.contains { why.contains($0) },
                        "\(context): kill -9 began a new epoch: \(why)")
                })
        }
        #expect(states.states.count >= 3, "\(scenario.name): only \(states.states.count) states")
        let both = scenario.cleanStop ? "\(duringStop) (during the stop)" : "all"
        return """
              \(scenario.name): \(operations.filter { $0.isMetadata }.count) metadata + \
            \(operations.filter { if case .write = $0 { return true } else { return false } }.count) write \
            operations, \(states.crashPoints) crash points, \(states.generated) states generated, \
            \(states.states.count) distinct\(states.bounded ? " (bounded)" : ""), \(both) started both ways \
            (\(starts) starts); epoch continued \
            after a process crash in \(continued[.processCrash, default: 0]), after a power cut in \
            \(continued[.powerCut, default: 0]); states a kill -9 can leave (everything up to the crash \
            point): \(killed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            """
    }

    /// Why a kill -9 may cost the epoch: between a broadcast and its journal record, and at a first
    /// start before its first snapshot and journal are both in place (nothing published yet).
    static let killWindows = [
        "was published but the journal ends", HistoryRecovery.noSavedHistory, "the journal is missing",
    ]

    /// The states a process crash (kill -9) can leave: every operation up to a crash point done;
    /// one crash point per distinct image (the latest).
    static func killStates(initial: DirectoryImage, operations: [FileOperation]) -> [(Int, DirectoryImage)] {
        var image = initial
        var latest: [VisibleDirectory: (Int, DirectoryImage)] = [:]
        for k in 0...operations.count {
            if k > 0 {
                let operation = operations[k - 1]
                if operation.isMetadata { image.applyMetadata(operation) }
                if case .write(let inode, let offset, let bytes) = operation {
                    image.applyWrite(inode: inode, offset: offset, bytes: bytes)
                }
            }
            latest[image.visible] = (k, image)
        }
        return latest.values.sorted { $0.0 < $1.0 }
    }

    /// The history checks on a started daemon; returns whether it continued the recorded epoch.
    /// Continued: the change log from seq 0 holds every change set the recording's subscriber got
    /// before the cut, identical (later ones, never seen, may differ: e.g. a client write cut
    /// before its broadcast comes back as the start-up's file change); replayed on the seed it
    /// gives exactly the books served, with their versions. A new epoch: its reason is logged. After a
    /// power cut, the epoch is continued only from a journal closed cleanly; a clean stop that
    /// completed is continued exactly (same seq and versions).
    static func checkHistory(
        client: RequestClient, daemon: DaemonProcess, history: HistoryRecording, state: CrashState,
        interpretation: Interpretation, stopCompleted: Bool, context: String
    ) throws -> Bool {
        let status = try client.status()
        let journal = state.image[PublishedPage.directory + "/journal"].flatMap {
            JournalBootRewriter.header($0.bytes)
        }
        if stopCompleted {
            #expect(status.epoch == history.epoch, "\(context): the epoch was not kept after a completed clean stop")
        }
        guard status.epoch == history.epoch else {
            #expect(daemon.logText.contains("new epoch: "), "\(context): a new epoch without a logged reason")
            return false
        }
        if interpretation == .powerCut {
            #expect(journal?.closedCleanly == true, "\(context): epoch continued after a reboot without a clean stop")
        }
        let served = try client.list()
        let versions = try HistoryPowerCutScenario.versions(client, ids: served.map(\.id))
        if stopCompleted {
            #expect(status.seq == history.finalSeq, "\(context): seq \(status.seq), stopped at \(history.finalSeq)")
            #expect(versions == history.finalVersions, "\(context): versions differ from those at the stop")
        }
        let resumer = try RequestClient(socket: daemon.options.socket ?? "")
        defer { resumer.close() }
        let reply = try resumer.request(
            Request(id: "resume", op: .subscribe, resume: ResumePoint(epoch: history.epoch, seq: 0), snapshot: false))
        #expect(reply.ok, "\(context): resume refused: \(reply)")
        var log: [UInt64: Event] = [:]
        if status.seq > 0 { try HistoryPowerCutScenario.collect(resumer, into: &log, through: status.seq) }
        var books = history.expected[0]
        var replayedVersions: [String: UInt64] = [:]
        // The change sets a subscriber may have seen before the cut: those must not change.
        let seen = state.acknowledged.compactMap { $0.hasPrefix("c") ? UInt64($0.dropFirst()) : nil }.max() ?? 0
        for seq in log.keys.sorted() {
            let change = log[seq]!
            if seq <= seen, let original = history.changes[seq] {
                #expect(
                    change.inserted == original.inserted && change.updated == original.updated
                        && change.deleted == original.deleted && change.source == original.source,
                    "\(context): change set \(seq) differs from the one subscribers got: \(change) vs \(original)")
            } else {
                #expect(seq > seen, "\(context): change set \(seq), seen before the cut, is missing")
            }
            for book in change.inserted ?? [] {
                books[book.id] = book
                replayedVersions[book.id] = seq
            }
            for update in change.updated ?? [] {
                books[update.new.id] = update.new
                replayedVersions[update.new.id] = seq
            }
            for book in change.deleted ?? [] {
                books[book.id] = nil
                replayedVersions[book.id] = nil
            }
        }
        #expect(books == served.byID, "\(context): the change log does not replay to the books served")
        for (id, version) in versions where version != replayedVersions[id, default: 0] {
            Issue.record("\(context): \(id) has version \(version), the change log says \(replayedVersions[id] ?? 0)")
        }
        return true
    }
}
