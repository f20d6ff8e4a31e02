import BooksCore
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// `RequestEncoder` → `RequestDecoder` gives back the same request, for every op and edge case.
@Suite struct RequestEncoderTests {
    let decoder = RequestDecoder()

    static let nasty = MessageEncoderTests.nasty

    /// Encodes, checks the line shape, decodes with the daemon's decoder.
    private func roundTrip(_ request: Request) throws -> Request {
        let line = try RequestEncoder.encode(request)
        #expect(line.last == UInt8(ascii: "\n"))
        var framer = LineFramer()
        #expect(framer.feed(line) == [.line(Array(line.dropLast()))], "exactly one line")
        #expect(framer.bufferedByteCount == 0)
        return try decoder.decode(Array(line.dropLast()))
    }

    /// A request for `op` with the fields that op uses.
    static func sample(_ op: Request.Operation, text: String = "x") -> Request {
        switch op {
        case .hello: return Request(id: "h", op: op, version: ProtocolVersion.current, client: text)
        case .ping, .status, .unsubscribe: return Request(id: "p-\(op.rawValue)", op: op)
        case .list, .query:
            return Request(
                id: "l", op: op,
                filter: BookFilter([
                    BookCondition(.author, .containsIgnoringCase, text),
                    BookCondition(.name, .prefix, text),
                ]),
                sort: BookSort(.name, ascending: false), limit: 10, offset: 5)
        case .get: return Request(id: "g", op: op, ids: [text, "b"])
        case .insert:
            return Request(
                id: "i", op: op,
                books: [
                    BookDraft(name: text, author: text),
                    BookDraft(id: text, name: "n", author: "a"),
                ])
        case .update:
            return Request(
                id: "u", op: op,
                patches: [
                    BookPatch(id: text, name: text, expectedVersion: 3),
                    BookPatch(id: "b", author: text),
                ])
        case .delete: return Request(id: "d", op: op, ids: [text, "b"], expectedVersions: [1, 2])
        case .subscribe:
            return Request(
                id: "s", op: op, filter: BookFilter([BookCondition(.id, .equals, text)]),
                resume: ResumePoint(epoch: text, seq: 9), store: text)
        case .stores: return Request(id: "st", op: op)
        case .conflicts: return Request(id: "c", op: op, store: text)
        case .resolve: return Request(id: "r", op: op, store: text, conflict: 3, take: .theirs)
        case .log:
            return Request(
                id: "lg", op: op, limit: 20, ids: [text], store: text,
                since: HistoryBound(time: "2026-12-01T08:30:00.000Z"),
                until: HistoryBound(epoch: text, seq: 7))
        case .show: return Request(id: "sh", op: op, store: text, seqs: [4])
        case .blame: return Request(id: "bl", op: op, ids: [text], store: text)
        case .undo: return Request(id: "un", op: op, store: text, seqs: [3, 1], force: true)
        case .save:
            return Request(
                id: "v", op: op, inserted: [BookInsertion(tempId: text, name: text, author: "a")],
                updated: [BookPatch(id: "b", name: text, expectedVersion: 4)],
                deleted: [BookDeletion(id: text), BookDeletion(id: "c", expectedVersion: 2)])
        }
    }

    @Test func everyOperationRoundTrips() throws {
        for op in Request.Operation.allCases {
            let request = Self.sample(op)
            #expect(try roundTrip(request) == request, "\(op)")
        }
    }

    @Test func everyOperationRoundTripsWithOnlyIdAndOp() throws {
        for op in Request.Operation.allCases {
            let request = Request(id: "7", op: op)
            #expect(try roundTrip(request) == request)
            let text = String(decoding: try RequestEncoder.encode(request), as: UTF8.self)
            #expect(text.contains("null") == false, "absent fields are omitted, not null: \(text)")
            let object = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            #expect(object == ["id": "7", "op": op.rawValue])
        }
    }

    @Test func unicodeAndEscapesRoundTripByteForByte() throws {
        for text in Self.nasty {
            for op in Request.Operation.allCases {
                var request = Self.sample(op, text: text)
                request.id = text
                let decoded = try roundTrip(request)
                #expect(decoded == request)
                // String equality is canonical equivalence; the bytes must survive too.
                #expect(Array(decoded.id.utf8) == Array(text.utf8))
            }
        }
        let slash = String(decoding: try RequestEncoder.encode(Request(id: "a/b", op: .ping)), as: UTF8.self)
        #expect(slash.contains(#""a/b""#), "slashes are not escaped")
    }

    @Test func bigAndExtremeIntegersRoundTrip() throws {
        let requests = [
            Request(id: "1", op: .hello, version: Int.max),
            Request(id: "2", op: .hello, version: Int.min),
            Request(id: "3", op: .list, limit: Int.max, offset: Int.min),
            Request(id: "4", op: .list, limit: 0, offset: 0),
            Request(id: "5", op: .subscribe, resume: ResumePoint(epoch: "", seq: UInt64.max)),
            Request(id: "6", op: .delete, ids: ["a", "b", "c"], expectedVersions: [0, UInt64.max, 1 << 53 + 1]),
            Request(id: "7", op: .update, patches: [BookPatch(id: "a", expectedVersion: UInt64.max)]),
            Request(id: "18446744073709551615", op: .ping),
        ]
        for request in requests { #expect(try roundTrip(request) == request) }
    }

    @Test func emptyCollectionsStayEmptyAndOptionalsStayAbsent() throws {
        let requests = [
            Request(id: "1", op: .get, ids: []),
            Request(id: "2", op: .insert, books: []),
            Request(id: "3", op: .update, patches: []),
            Request(id: "4", op: .delete, ids: [], expectedVersions: []),
            Request(id: "5", op: .list, filter: BookFilter()),
            Request(id: "6", op: .insert, books: [BookDraft(name: "", author: "")]),
            Request(id: "7", op: .update, patches: [BookPatch(id: "only-id")]),
            Request(id: "", op: .ping),
        ]
        for request in requests { #expect(try roundTrip(request) == request) }
    }

    @Test func messageEncoderGivesTheSameBytes() throws {
        for op in Request.Operation.allCases {
            let request = Self.sample(op, text: Self.nasty[2])
            #expect(try MessageEncoder.encode(request) == RequestEncoder.encode(request))
        }
    }

    @Test func encodingErrorSaysWhichRequest() {
        let error = RequestEncodingError(id: "9", op: .insert, reason: "books[0].name: cannot represent")
        #expect(error.description == "cannot encode request 9 (insert): books[0].name: cannot represent")
    }
}
