import BooksCore
import BooksTestSupport
import FoundationEssentials

@testable import BooksProtocol

/// Random values of every wire message and its parts, for `CodecAgreementTests`: strings drawn
/// from `MessageEncoderTests.nasty` (quotes, backslashes, control characters, non-ASCII, empty),
/// random scalars of every plane and a long string; integers at their extremes.
enum CodecValueGenerator {
    static func chance(_ random: inout SplitMix64) -> Bool { random.next() % 2 == 0 }

    static func text(_ random: inout SplitMix64) -> String {
        switch random.next() % 6 {
        case 0, 1: return MessageEncoderTests.nasty[Int(random.next() % UInt64(MessageEncoderTests.nasty.count))]
        case 2: return random.next() % 4 == 0 ? String(repeating: "\u{1}\"\\é", count: 300) : ""
        default:
            var s = ""
            for _ in 0..<Int(random.next() % 12) {
                if let scalar = Unicode.Scalar(UInt32(random.next() % 0x11_0000)) { s.unicodeScalars.append(scalar) }
            }
            return s
        }
    }

    static func unsigned(_ random: inout SplitMix64) -> UInt64 {
        [0, 1, UInt64.max, UInt64(Int64.max), random.next()][Int(random.next() % 5)]
    }

    static func signed(_ random: inout SplitMix64) -> Int {
        [0, -1, Int.min, Int.max, Int(truncatingIfNeeded: random.next())][Int(random.next() % 5)]
    }

    static func maybe<T>(_ random: inout SplitMix64, _ all: Bool, _ make: (inout SplitMix64) -> T) -> T? {
        all || chance(&random) ? make(&random) : nil
    }

    static func book(_ random: inout SplitMix64) -> Book {
        Book(id: text(&random), name: text(&random), author: text(&random))
    }

    static func books(_ random: inout SplitMix64) -> [Book] { (0..<Int(random.next() % 4)).map { _ in book(&random) } }

    static func strings(_ random: inout SplitMix64) -> [String] {
        (0..<Int(random.next() % 4)).map { _ in text(&random) }
    }

    static func actor(_ random: inout SplitMix64, all: Bool = false) -> ChangeActor {
        let pids: [Int32] = [0, -1, Int32.min, Int32.max]
        return ChangeActor(
            uid: maybe(&random, all) { _ in UInt32.max }, user: maybe(&random, all, text),
            pid: maybe(&random, all) { pids[Int($0.next() % 4)] }, program: maybe(&random, all, text),
            host: maybe(&random, all, text), editor: maybe(&random, all, text), via: maybe(&random, all, text),
            natsUser: maybe(&random, all, text))
    }

    static func recordedConflict(_ random: inout SplitMix64) -> RecordedConflict {
        let kinds: [MergeConflict.Kind] = [.name, .author, .deletedByMine, .deletedByTheirs]
        let conflict = MergeConflict(
            id: text(&random), kind: kinds[Int(random.next() % 4)], base: maybe(&random, false, book),
            mine: maybe(&random, false, book), theirs: maybe(&random, false, book))
        return RecordedConflict(
            id: signed(&random), conflict: conflict, seq: unsigned(&random), baseSeq: unsigned(&random),
            time: Date(timeIntervalSinceReferenceDate: Double(random.next() % 2_000_000_000)), who: text(&random))
    }

    static func bookConflict(_ random: inout SplitMix64) -> BookConflict {
        BookConflict(
            id: text(&random), current: maybe(&random, false, book), currentVersion: maybe(&random, false, unsigned),
            message: text(&random))
    }

    static func storeInfo(_ random: inout SplitMix64) -> StoreInfo {
        StoreInfo(
            name: text(&random), path: text(&random), format: text(&random), state: text(&random),
            problem: maybe(&random, false, text), bookCount: signed(&random), badLines: signed(&random),
            epoch: text(&random), seq: unsigned(&random), historyOldestSeq: maybe(&random, false, unsigned),
            historyOldestTime: maybe(&random, false, text))
    }

    static func event(_ kind: Event.Kind, _ random: inout SplitMix64, all: Bool) -> Event {
        let sources: [ChangeSource] = [.file, .client, .nats, .undo]
        var event = Event(
            event: kind, epoch: text(&random), seq: unsigned(&random),
            source: maybe(&random, all) { sources[Int($0.next() % 4)] }, time: maybe(&random, all, text),
            inserted: maybe(&random, all, books),
            updated: maybe(&random, all) { r in
                books(&r).map { BookUpdate(old: $0, new: Book(id: $0.id, name: text(&r), author: text(&r))) }
            },
            deleted: maybe(&random, all, books), books: maybe(&random, all, books), reason: maybe(&random, all, text),
            more: maybe(&random, all, chance), store: maybe(&random, all, text),
            actor: maybe(&random, all) { actor(&$0) })
        event.merged = maybe(&random, all) { Event.MergedFrom(base: unsigned(&$0)) }
        event.reverts = maybe(&random, all) { r in (0..<Int(r.next() % 3)).map { _ in unsigned(&r) } }
        if kind == .conflict {
            event.conflict = maybe(&random, all, recordedConflict)
            event.resolved = maybe(&random, all) { ConflictSide.allCases[Int($0.next() % 2)] }
        }
        return event
    }

    static func result(only field: String, _ random: inout SplitMix64) -> ReplyResult {
        result(adding: field, to: ReplyResult(), &random)
    }

    /// `result` with `field` set to a random value.
    static func result(adding field: String, to result: ReplyResult, _ random: inout SplitMix64) -> ReplyResult {
        var r = result
        switch field {
        case "protocolVersion": r.protocolVersion = signed(&random)
        case "server": r.server = text(&random)
        case "epoch": r.epoch = text(&random)
        case "seq": r.seq = unsigned(&random)
        case "books": r.books = books(&random)
        case "versions": r.versions = (0..<Int(random.next() % 4)).map { _ in unsigned(&random) }
        case "total": r.total = signed(&random)
        case "status": r.status = status(&random)
        case "more": r.more = chance(&random)
        case "remap": r.remap = Dictionary(strings(&random).map { ($0, text(&random)) }) { first, _ in first }
        case "stores": r.stores = (0..<Int(random.next() % 3)).map { _ in storeInfo(&random) }
        case "subscribedStores": r.subscribedStores = strings(&random)
        case "conflicts": r.conflicts = (0..<Int(random.next() % 3)).map { _ in recordedConflict(&random) }
        case "merged": r.merged = strings(&random)
        case "history": r.history = (0..<Int(random.next() % 3)).map { _ in event(.change, &random, all: false) }
        case "oldestSeq": r.oldestSeq = unsigned(&random)
        case "blame":
            r.blame = (0..<Int(random.next() % 3)).map { _ in
                BlameEntry(
                    id: text(&random), book: maybe(&random, false, book), seq: unsigned(&random),
                    time: maybe(&random, false, text), source: .client, actor: maybe(&random, false) { actor(&$0) },
                    change: maybe(&random, false, text))
            }
        case "refused": r.refused = (0..<Int(random.next() % 3)).map { _ in bookConflict(&random) }
        default: preconditionFailure("no generator for ReplyResult.\(field)")
        }
        return r
    }

    static func status(_ random: inout SplitMix64) -> DaemonStatus {
        DaemonStatus(
            file: text(&random), format: text(&random), fileState: text(&random),
            fileProblem: maybe(&random, false, text),
            bookCount: signed(&random), badLines: [], heldBooks: strings(&random), watcherMode: text(&random),
            watcherWarning: maybe(&random, false, text), epoch: text(&random), seq: unsigned(&random),
            oldestReplayableSeq: unsigned(&random), subscribers: signed(&random), clients: signed(&random),
            uptimeSeconds: Double(random.next() % 1_000_000), lastChange: maybe(&random, false, text),
            server: text(&random))
    }

    static func error(_ code: ProtocolError.ErrorCode, _ random: inout SplitMix64, all: Bool) -> ProtocolError {
        ProtocolError(
            code, text(&random), current: maybe(&random, all, book), currentVersion: maybe(&random, all, unsigned),
            conflicts: maybe(&random, all) { r in (0..<Int(r.next() % 3)).map { _ in bookConflict(&r) } },
            stores: maybe(&random, all, strings))
    }
}
