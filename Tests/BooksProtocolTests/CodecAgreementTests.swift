import BooksCore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// Each daemon-to-client message is written three ways: the synthesized `Codable` (the one
/// description: `JSONDecoder` reads it, `JSONEncoder` writes it), `MessageEncoder`'s hand-written
/// `JSONWriter` and the hand-written `FastMessageDecoder`. For every message kind and a generated
/// set of values (odd strings, extreme integers), `JSONWriter`'s line decodes with the `Codable`
/// to the same value, and `FastMessageDecoder` reads both the `Codable`'s encoding and
/// `JSONWriter`'s to the same value (or, for the parts it leaves to `JSONDecoder`, to nothing).
///
/// The tables below name every event kind and every field of the messages (read by reflection):
/// a new kind or field without an entry here fails `everyKindAndFieldHasACheck`.
@Suite struct CodecAgreementTests {
    typealias Gen = CodecValueGenerator

    /// What the fast decoder does with a part of a message.
    enum FastPath: Equatable {
        /// Reads it: a line holding it must be decoded by the fast path.
        case read
        /// Leaves the line to `JSONDecoder` (rare, small parts): nil is the right answer.
        case declined
    }

    /// Every event kind.
    static let eventKinds: [Event.Kind: FastPath] = [
        .snapshot: .read, .change: .read, .resyncRequired: .read, .heartbeat: .read, .shutdown: .read,
        .subscribed: .read, .subscribeFailed: .read, .storeAdded: .read, .storeRemoved: .read, .conflict: .read,
    ]

    /// Every field of `Event`.
    static let eventFields: [String: FastPath] = [
        "event": .read, "store": .read, "epoch": .read, "seq": .read, "source": .read, "time": .read,
        "inserted": .read, "updated": .read, "deleted": .read, "books": .read, "reason": .read, "more": .read,
        "merged": .read, "reverts": .read, "actor": .read, "conflict": .declined, "resolved": .declined,
    ]

    /// Every field of `ReplyResult`.
    static let resultFields: [String: FastPath] = [
        "protocolVersion": .read, "server": .read, "epoch": .read, "seq": .read, "books": .read,
        "versions": .read, "total": .read, "status": .declined, "more": .read, "remap": .read, "stores": .read,
        "subscribedStores": .read, "conflicts": .declined, "merged": .read, "history": .declined,
        "oldestSeq": .read, "blame": .declined, "refused": .declined,
    ]

    /// Every field of `ProtocolError` (each error code is generated too).
    static let errorFields: [String: FastPath] = [
        "code": .read, "message": .read, "current": .read, "currentVersion": .read, "conflicts": .read,
        "stores": .read,
    ]

    static func labels(_ value: Any) -> Set<String> { Set(Mirror(reflecting: value).children.compactMap(\.label)) }

    @Test func everyKindAndFieldHasACheck() {
        #expect(Set(Event.Kind.allCases) == Set(Self.eventKinds.keys))
        #expect(Self.labels(Event(event: .heartbeat, epoch: "", seq: 0)) == Set(Self.eventFields.keys))
        #expect(Self.labels(ReplyResult()) == Set(Self.resultFields.keys))
        #expect(Self.labels(ProtocolError(.conflict, "")) == Set(Self.errorFields.keys))
    }

    /// Checks one message on the three paths; `fast`: whether the fast decoder must read it.
    func check(_ message: DaemonMessage, fast: Bool, _ what: String) throws {
        let written: [UInt8]
        let codable: [UInt8]
        let encoder = JSONEncoder()
        switch message {
        case .event(let event):
            written = MessageEncoder.encode(event)
            codable = Array(try encoder.encode(event))
        case .reply(let reply):
            written = MessageEncoder.encode(reply)
            codable = Array(try encoder.encode(reply))
        }
        let decoded = try MessageDecoder().decodeWithFoundation(written)
        #expect(decoded == message, "JSONWriter → Codable, \(what): \(String(decoding: written, as: UTF8.self))")
        for (line, source) in [(codable, "Codable"), (Array(written.dropLast()), "JSONWriter")] {
            let read = line.withUnsafeBufferPointer(FastMessageDecoder.decode)
            if fast {
                #expect(read == message, "\(source) → fast, \(what): \(String(decoding: line, as: UTF8.self))")
            } else {
                #expect(read == nil || read == message, "\(source) → fast, \(what)")
            }
        }
    }

    @Test func everyEventKindAgreesOnAllPaths() throws {
        var random = SplitMix64(seed: 24)
        for (kind, path) in Self.eventKinds.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for round in 0..<20 {
                let event = Gen.event(kind, &random, all: round == 0)
                let fast = path == .read && event.conflict == nil && event.resolved == nil
                try check(.event(event), fast: fast, "event \(kind.rawValue) round \(round)")
            }
        }
    }

    @Test func everyReplyFieldAgreesOnAllPaths() throws {
        var random = SplitMix64(seed: 25)
        for (field, path) in Self.resultFields.sorted(by: { $0.key < $1.key }) {
            for round in 0..<15 {
                let result = Gen.result(only: field, &random)
                let reply = Reply(id: round % 5 == 0 ? nil : Gen.text(&random), ok: true, result: result, error: nil)
                try check(.reply(reply), fast: path == .read, "result.\(field) round \(round)")
            }
        }
        for _ in 0..<20 {
            let fields = Self.resultFields.filter { $0.value == .read }.keys.sorted()
            let result = fields.reduce(into: ReplyResult()) { $0 = Gen.result(adding: $1, to: $0, &random) }
            try check(.reply(Reply(id: Gen.text(&random), ok: true, result: result, error: nil)), fast: true, "all")
        }
    }

    @Test func everyErrorCodeAgreesOnAllPaths() throws {
        var random = SplitMix64(seed: 26)
        for code in ProtocolError.ErrorCode.allCases {
            for round in 0..<10 {
                let error = Gen.error(code, &random, all: round == 0)
                let reply = Reply(id: round % 3 == 0 ? nil : Gen.text(&random), ok: false, result: nil, error: error)
                try check(.reply(reply), fast: true, "error \(code.rawValue) round \(round)")
            }
        }
    }
}
