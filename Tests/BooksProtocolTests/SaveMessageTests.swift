import BooksCore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// The `save` request and its reply: both decoders agree on the remap and the conflicts (random
/// mutations of these replies are in `FastMessageDecoderTests`).
@Suite struct SaveMessageTests {
    let decoder = MessageDecoder()

    static func conflictReply(_ n: Int) -> Reply {
        var conflicts: [BookConflict] = []
        for k in 0..<n {
            let present = k % 2 == 0
            let book = Book(id: "b\(k)", name: "N\"\(k)", author: "é😀")
            conflicts.append(
                BookConflict(
                    id: book.id, current: present ? book : nil, currentVersion: present ? UInt64(k) : nil,
                    message: "book b\(k) is at version \(k), not 0"))
        }
        return .failure("s", ProtocolError(.conflict, "the save conflicts", conflicts: conflicts))
    }

    static func remapReply(_ n: Int) -> Reply {
        let remap = Dictionary(uniqueKeysWithValues: (0..<n).map { ("temp:\($0)\\\"", "P-\($0)") })
        let books = (0..<n).map { Book(id: "P-\($0)", name: "n\n\($0)", author: "a") }
        return .success(
            "s", ReplyResult(epoch: "E", seq: 7, books: books, versions: books.map { _ in 7 }, remap: remap))
    }

    @Test func saveRepliesDecodeIdenticallyOnBothPaths() throws {
        for n in 0..<6 {
            for reply in [Self.conflictReply(n), Self.remapReply(n)] {
                let line = MessageEncoder.encode(reply)
                let fast = line.withUnsafeBufferPointer(FastMessageDecoder.decode)
                #expect(fast != nil, "\(String(decoding: line, as: UTF8.self))")
                #expect(fast == (try decoder.decodeWithFoundation(line)))
                #expect(fast == .reply(reply))
            }
        }
    }

    @Test func unusualRemapsAreLeftToFoundation() {
        let lines = [
            #"{"id":"s","ok":true,"result":{"remap":{"a":"x","a":"y"}}}"#,  // duplicate key
            #"{"id":"s","ok":true,"result":{"remap":{"a":1}}}"#,
            #"{"id":"s","ok":false,"error":{"code":"conflict","message":"m","conflicts":[{"id":"a"}]}}"#,
        ]
        for line in lines {
            #expect(Array(line.utf8).withUnsafeBufferPointer(FastMessageDecoder.decode) == nil, "\(line)")
        }
    }

    @Test func aSaveRequestRoundTripsThroughTheDaemonsDecoder() throws {
        let request = Request(
            id: "s", op: .save, inserted: [BookInsertion(tempId: "t|1", name: "Emma", author: "Austen")],
            updated: [BookPatch(id: "1", author: "Herbert", expectedVersion: 3)],
            deleted: [BookDeletion(id: "2"), BookDeletion(id: "3", expectedVersion: 9)])
        let line = try RequestEncoder.encode(request)
        #expect(try RequestDecoder().decode(Array(line.dropLast())) == request)
        let text = #"{"id":1,"op":"save","deleted":[{"id":"x"}]}"#
        #expect(try RequestDecoder().decode(Array(text.utf8)).deleted == [BookDeletion(id: "x")])
    }

    @Test func aSaveWithABaseRoundTripsThroughTheDaemonsDecoder() throws {
        let request = Request(
            id: "s", op: .save, updated: [BookPatch(id: "1", author: "Herbert")], deleted: [BookDeletion(id: "2")])
        var based = request
        based.base = ResumePoint(epoch: "E-1", seq: 41)
        let line = try RequestEncoder.encode(based)
        #expect(String(decoding: line, as: UTF8.self).contains(#""base":{"epoch":"E-1","seq":41}"#))
        #expect(try RequestDecoder().decode(Array(line.dropLast())) == based)
        #expect(try MessageEncoder.encode(based) == line)
        let text = #"{"id":1,"op":"save","deleted":[{"id":"x"}],"base":{"epoch":"E","seq":0}}"#
        #expect(try RequestDecoder().decode(Array(text.utf8)).base == ResumePoint(epoch: "E", seq: 0))
        #expect(try RequestDecoder().decode(Array(try RequestEncoder.encode(request).dropLast())).base == nil)
        let missingSeq = #"{"id":1,"op":"save","deleted":[{"id":"x"}],"base":{"epoch":"E"}}"#
        #expect(throws: RequestDecodingError.self) { try RequestDecoder().decode(Array(missingSeq.utf8)) }
    }

    @Test func aMergedSavesReplyDecodesIdenticallyOnBothPaths() throws {
        let book = Book(id: "b1", name: "Dune", author: "F. Herbert")
        var result = ReplyResult(epoch: "E", seq: 9, books: [book], versions: [9], remap: [:])
        result.merged = ["b1", "b\"2"]
        let conflict = RecordedConflict(
            id: 3,
            conflict: MergeConflict(
                id: "b1", kind: .author, base: Book(id: "b1", name: "Dune", author: "Herbert"), mine: book,
                theirs: Book(id: "b1", name: "Dune", author: "Frank Herbert")),
            seq: 9, baseSeq: 4, time: Date(timeIntervalSince1970: 1_700_000_000), who: "alice booksctl[7]")
        for conflicts in [nil, [conflict]] {
            result.conflicts = conflicts
            let reply = Reply.success("s", result)
            let line = MessageEncoder.encode(reply)
            #expect(String(decoding: line, as: UTF8.self).contains(#""merged":["b1","b\"2"]"#))
            #expect(try decoder.decode(line) == .reply(reply))
            #expect(try decoder.decodeWithFoundation(line) == .reply(reply))
            if conflicts == nil {
                #expect(line.withUnsafeBufferPointer(FastMessageDecoder.decode) == .reply(reply), "the fast path")
            }
        }
        let error = Reply.failure("s", ProtocolError(.baseNotKept, "the save's base seq 1 is older than the history"))
        let line = MessageEncoder.encode(error)
        #expect(String(decoding: line, as: UTF8.self).contains(#""code":"base-not-kept""#))
        #expect(line.withUnsafeBufferPointer(FastMessageDecoder.decode) == .reply(error))
        #expect(try decoder.decodeWithFoundation(line) == .reply(error))
    }
}
