import BooksCore
import BooksProtocol
import Testing

@testable import BooksClient

/// The consumers' side of a change set split into parts: delivered once, whole.
@Suite struct NATSPartAssemblerTests {
    func part(_ seq: UInt64, _ ids: [String], epoch: String = "E") -> Event {
        Event(
            event: .change, epoch: epoch, seq: seq, source: .client, time: "t",
            inserted: ids.map { Book(id: $0, name: "n", author: "a") })
    }

    @Test func partsInOrderGiveOneWholeChangeSet() throws {
        var assembler = NATSPartAssembler()
        #expect(assembler.add(part(3, ["a", "b"]), part: (1, 3)).event == nil)
        #expect(assembler.add(part(3, ["c"]), part: (2, 3)).event == nil)
        let outcome = assembler.add(part(3, ["d"]), part: (3, 3))
        let whole = try #require(outcome.event)
        #expect(whole.inserted?.map(\.id) == ["a", "b", "c", "d"] && whole.seq == 3 && outcome.dropped == nil)
        #expect(assembler.add(part(4, ["e"]), part: nil).event?.inserted?.map(\.id) == ["e"])
    }

    @Test func aChangeSetResentFromItsFirstPartReplacesTheUnfinishedOne() throws {
        var assembler = NATSPartAssembler()
        _ = assembler.add(part(3, ["a"]), part: (1, 2))
        let restarted = assembler.add(part(3, ["a"]), part: (1, 2))
        #expect(restarted.event == nil && restarted.dropped != nil)
        let whole = try #require(assembler.add(part(3, ["b"]), part: (2, 2)).event)
        #expect(whole.inserted?.map(\.id) == ["a", "b"])
    }

    @Test func partsWhoseStartWasNotReadAreSkippedAndReported() {
        var assembler = NATSPartAssembler()
        let outcome = assembler.add(part(3, ["b"]), part: (2, 2))
        #expect(outcome.event == nil)
        #expect(outcome.dropped?.contains("began before") == true)
        _ = assembler.add(part(5, ["x"]), part: (1, 2))
        let other = assembler.add(part(6, ["y"]), part: nil)
        #expect(other.event?.seq == 6 && other.dropped?.contains("change set 5") == true)
    }

    @Test func theMarkingIsReadFromTheMessageBytes() {
        #expect(
            NATSPayload.part(of: Array(#"{"store":"s","part":2,"parts":5,"event":"change"}"#.utf8))! == (2, 5))
        #expect(NATSPayload.part(of: Array(#"{"store":"s","event":"change"}"#.utf8)) == nil)
        #expect(NATSPayload.part(of: Array(#"{"store":"s","part":6,"parts":5}"#.utf8)) == nil)
    }
}
