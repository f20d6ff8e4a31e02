import BooksCore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksProtocol

/// The fast path decodes exactly what `JSONDecoder` decodes, and leaves everything else to it.
@Suite struct FastMessageDecoderTests {
    let decoder = MessageDecoder()

    private func fast(_ text: String) -> DaemonMessage? {
        Array(text.utf8).withUnsafeBufferPointer(FastMessageDecoder.decode)
    }

    private func foundation(_ text: String) -> DaemonMessage? {
        try? decoder.decodeWithFoundation(Array(text.utf8))
    }

    /// Random text drawn from the encoder's nasty strings and random scalars (all planes).
    private static func text(_ random: inout SplitMix64) -> String {
        let pick = Int(random.next() % 4)
        if pick == 0 { return MessageEncoderTests.nasty[Int(random.next() % UInt64(MessageEncoderTests.nasty.count))] }
        var s = ""
        for _ in 0..<Int(random.next() % 12) {
            let raw = UInt32(random.next() % (pick == 1 ? 0x80 : 0x11_0000))
            if let scalar = Unicode.Scalar(raw) { s.unicodeScalars.append(scalar) }
        }
        return s
    }

    private static func book(_ random: inout SplitMix64) -> Book {
        Book(id: text(&random), name: text(&random), author: text(&random))
    }

    @Test func encodedMessagesDecodeIdenticallyOnBothPaths() throws {
        var random = SplitMix64(seed: 12)
        for round in 0..<400 {
            let books = (0..<Int(random.next() % 5)).map { _ in Self.book(&random) }
            let updates = books.map { BookUpdate(old: $0, new: Book(id: $0.id, name: Self.text(&random), author: "")) }
            let messages: [[UInt8]] = [
                MessageEncoder.encode(
                    Event(
                        event: .change, epoch: Self.text(&random), seq: random.next(), source: .file,
                        time: Self.text(&random), inserted: books, updated: updates, deleted: books)),
                MessageEncoder.encode(
                    Event(event: .snapshot, epoch: "e", seq: UInt64(round), books: books, more: round % 2 == 0)),
                MessageEncoder.encode(
                    Reply.success(
                        Self.text(&random),
                        ReplyResult(
                            protocolVersion: 1, server: Self.text(&random), epoch: "e", seq: 9, books: books,
                            versions: books.map { _ in random.next() }, total: -Int(random.next() % 1000)))),
                MessageEncoder.encode(
                    Reply.failure(
                        nil, ProtocolError(.conflict, Self.text(&random), current: books.first, currentVersion: 3))),
            ]
            for line in messages {
                let fastResult = line.withUnsafeBufferPointer(FastMessageDecoder.decode)
                #expect(fastResult != nil)
                #expect(fastResult == (try decoder.decodeWithFoundation(line)))
            }
        }
    }

    @Test func escapesAndUnknownKeysMatchFoundation() {
        let lines = [
            #"{"event":"heartbeat","epoch":"\u00e9\u00E9 \ud83d\ude00 \/ \b\f\n\r\t \u0000 \"\\","seq":1}"#,
            #"{ "event" : "shutdown" , "epoch":"☃","seq":0,"reason":null,"x":[1,-2.5e3,{"y":[true,false,null]}]}"#,
            #"{"id":"a","ok":true,"n":7.5e0,"result":{"books":[{"id":"i","name":"n","author":"a","z":{}}]}}"#,
            #"{"ok":false,"id":null,"error":{"code":"not-found","message":"m","current":null}}"#,
            #"{"event":"change","epoch":"e","seq":18446744073709551615,"updated":[{"new":{"id":"a","name":"","author":""},"old":{"id":"a","name":"x","author":""}}]}"#,
            #"{"ok":true,"result":{"epoch":"e","seq":2,"total":-3,"more":false,"versions":[]}}"#,
        ]
        for line in lines {
            #expect(fast(line) != nil, "\(line)")
            #expect(fast(line) == foundation(line), "\(line)")
        }
    }

    @Test func invalidOrUnusualLinesAreLeftToFoundation() throws {
        let lines = [
            #"{"event":"heartbeat","epoch":"\ud83d","seq":1}"#,  // lone high surrogate
            #"{"event":"heartbeat","epoch":"\ude00x","seq":1}"#,  // lone low surrogate
            "{\"event\":\"heartbeat\",\"epoch\":\"a\u{1}\",\"seq\":1}",  // raw control character
            #"{"event":"heartbeat","epoch":"e","seq":01}"#,  // leading zero
            #"{"event":"heartbeat","epoch":"e","seq":1.0}"#,  // fraction
            #"{"event":"heartbeat","epoch":"e","seq":-1}"#,
            #"{"event":"heartbeat","epoch":"e","seq":18446744073709551616}"#,  // overflow
            #"{"event":"heartbeat","epoch":"e","seq":1} x"#,  // trailing garbage
            #"{"event":"heartbeat","epoch":"e","seq":1"#,  // truncated
            #"{"event":"nonsense","epoch":"e","seq":1}"#,
            #"{"event":"heartbeat","epoch":"\x","seq":1}"#,
            #"{"event":"change","epoch":"e","seq":1,"updated":[{"old":{"id":"a","name":"","author":""},"new":{"id":"b","name":"","author":""}}]}"#,
            #"{"ok":true,"result":{"status":{}}}"#,
            #"{"ok":false,"error":{"code":"weird","message":"m"}}"#,
            #"[1]"#, "", "{}", #"{"id":"1"}"#,
            // Duplicate keys (JSONDecoder keeps the first): left to it.
            #"{"event":"heartbeat","epoch":"a","seq":1,"epoch":"b"}"#,
            #"{"ok":true,"result":{"seq":1,"seq":2}}"#,
            // Whitespace between a minus sign and its digits (found by the decoder fuzzer).
            "{\"id\":\"1\",\"ok\":true,\"result\":{\"total\":-\n\n8453849}}",
            #"{"event":"snapshot","epoch":"e","seq":1,"books":[{"id":"a","name":"n","author":"x","id":"b"}]}"#,
        ]
        for line in lines {
            #expect(fast(line) == nil, "\(line)")
        }
        // Invalid UTF-8 inside a string.
        var bytes = Array(#"{"event":"heartbeat","epoch":"ab","seq":1}"#.utf8)
        bytes[31] = 0xFF
        #expect(bytes.withUnsafeBufferPointer(FastMessageDecoder.decode) == nil)
        #expect(throws: MessageDecodingError.self) { try decoder.decode(bytes) }
    }

    @Test func randomMutationsNeverDisagreeWithFoundation() {
        var random = SplitMix64(seed: 99)
        let seeds = [
            MessageEncoder.encode(MessageDecoderTests.sample(.change, text: "a\"é😀\n")),
            MessageEncoder.encode(
                Reply.failure("1", ProtocolError(.conflict, "m", current: MessageEncoderTests.book(2)))),
            MessageEncoder.encode(SaveMessageTests.conflictReply(3)),
            MessageEncoder.encode(SaveMessageTests.remapReply(3)),
        ]
        let alphabet = Array(#"{}[]",:\u0123456789abcdef-.eE tn"#.utf8) + [0x00, 0x1F, 0xC3, 0xFF]
        for _ in 0..<6000 {
            var line = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<Int(1 + random.next() % 3) {
                let at = Int(random.next() % UInt64(line.count))
                switch random.next() % 3 {
                case 0: line[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: line.remove(at: at)
                default: line.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                }
            }
            guard let fastResult = line.withUnsafeBufferPointer(FastMessageDecoder.decode) else { continue }
            #expect(fastResult == (try? decoder.decodeWithFoundation(line)), "\(String(decoding: line, as: UTF8.self))")
        }
    }
}
