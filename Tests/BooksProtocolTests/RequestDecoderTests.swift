import BooksCore
import Testing

@testable import BooksProtocol

@Suite struct RequestDecoderTests {
    let decoder = RequestDecoder()

    private func failure(_ text: String) -> RequestDecodingError? {
        failure(Array(text.utf8))
    }

    private func failure(_ bytes: [UInt8]) -> RequestDecodingError? {
        do {
            _ = try decoder.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesFullRequest() throws {
        let line =
            #"{"id":"r1","op":"list","filter":{"conditions":[{"field":"name","op":"contains","value":"Dune"}]},"#
            + #""limit":5}"#
        let request = try decoder.decode(Array(line.utf8))
        #expect(request.id == "r1")
        #expect(request.op == .list)
        #expect(request.limit == 5)
        #expect(request.filter == BookFilter([BookCondition(.name, .contains, "Dune")]))
    }

    @Test func numericIDsAreKeptAsText() throws {
        #expect(try decoder.decode(Array(#"{"id":42,"op":"ping"}"#.utf8)).id == "42")
        #expect(try decoder.decode(Array(#"{"id":-7,"op":"ping"}"#.utf8)).id == "-7")
        #expect(
            try decoder.decode(Array(#"{"id":18446744073709551615,"op":"ping"}"#.utf8)).id == "18446744073709551615")
        #expect(try decoder.decode(Array(#"{"id":1.5,"op":"ping"}"#.utf8)).id == "1.5")
    }

    @Test func invalidUTF8() {
        let e = failure([UInt8(ascii: "{"), 0xFF, 0xFE, UInt8(ascii: "}")])
        #expect(e?.error.code == .invalidUTF8)
        #expect(e?.requiresDisconnect == true)
        // A lone surrogate encoded in UTF-8 is invalid too.
        #expect(failure([0x22, 0xED, 0xA0, 0x80, 0x22])?.error.code == .invalidUTF8)
    }

    @Test func deepNestingIsRejectedWithoutRecursion() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let e = failure(deep)
        #expect(e?.error.code == .tooDeep)
        #expect(e?.requiresDisconnect == true)
        let unclosed = #"{"id":"x","op":"ping","filter":"# + String(repeating: "{\"a\":", count: 10_000)
        #expect(failure(unclosed)?.error.code == .tooDeep)
        // Brackets inside strings do not count.
        let inString = #"{"id":"x","op":"ping","client":""# + String(repeating: "[", count: 100) + #""}"#
        #expect(failure(inString) == nil)
        // 32 levels are fine (then it is just a bad request), 33 are not.
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(failure(ok)?.error.code == .badRequest)
        let over = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(failure(over)?.error.code == .tooDeep)
    }

    @Test func badRequestKinds() {
        for text in ["not json", "", "[]", "42", "\"str\"", "{", "null"] {
            let e = failure(text)
            #expect(e?.error.code == .badRequest, "\(text)")
            #expect(e?.id == nil)
            #expect(e?.requiresDisconnect == true)
        }
        #expect(failure(#"{"op":"ping"}"#)?.error.code == .badRequest)
        #expect(failure(#"{"id":null,"op":"ping"}"#)?.id == nil)
        #expect(failure(#"{"id":true,"op":"ping"}"#)?.error.code == .badRequest)
        let missingOp = failure(#"{"id":"a1"}"#)
        #expect(missingOp?.error.code == .badRequest)
        #expect(missingOp?.id == "a1")
        let opNotString = failure(#"{"id":"a2","op":5}"#)
        #expect(opNotString?.error.code == .badRequest)
        #expect(opNotString?.id == "a2")
        let wrongType = failure(#"{"id":9,"op":"list","limit":"ten"}"#)
        #expect(wrongType?.error.code == .badRequest)
        #expect(wrongType?.id == "9")
        #expect(wrongType?.error.message.contains("limit") == true)
    }

    @Test func unknownOpKeepsIDAndConnection() {
        let e = failure(#"{"id":"u1","op":"frobnicate"}"#)
        #expect(e?.error.code == .unknownOp)
        #expect(e?.id == "u1")
        #expect(e?.requiresDisconnect == false)
        #expect(e?.reply == Reply.failure("u1", e!.error))
        #expect(failure(#"{"id":3,"op":"nope"}"#)?.id == "3")
    }

    @Test func requestsRoundTripThroughEncoder() throws {
        let requests = [
            Request(id: "1", op: .hello, version: 1, client: "booksctl/1 \"q\""),
            Request(
                id: "2", op: .list, filter: BookFilter([BookCondition(.author, .containsIgnoringCase, "ö")]),
                sort: BookSort(.name, ascending: false), limit: 10, offset: 5),
            Request(id: "3", op: .subscribe, resume: ResumePoint(epoch: "E", seq: 9)),
            Request(id: "4", op: .insert, books: [BookDraft(name: "n\n", author: "a")]),
            Request(id: "5", op: .update, patches: [BookPatch(id: "x", name: "y", expectedVersion: 3)]),
            Request(id: "6", op: .delete, ids: ["a", "b"], expectedVersions: [1, 2]),
        ]
        for request in requests {
            let line = try MessageEncoder.encode(request)
            #expect(line.last == 10)
            #expect(try decoder.decode(Array(line.dropLast())) == request)
        }
    }

    @Test func violationClassification() {
        let disconnecting: Set<ProtocolError.ErrorCode> = [
            .badRequest, .invalidUTF8, .tooDeep, .tooLarge,
            .helloRequired, .unsupportedVersion, .limitExceeded,
        ]
        for code in ProtocolError.ErrorCode.allCases {
            #expect(code.isProtocolViolation == disconnecting.contains(code))
        }
    }
}
