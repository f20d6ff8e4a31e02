import BooksCore
import BooksTestSupport
import Testing

@testable import BooksProtocol

/// A change set larger than the server's `max_payload` is split into marked parts that give it back.
@Suite struct NATSPayloadPartsTests {
    @Test func eachPartReadsBackItsMarking() throws {
        let change = TestChangeSets.bulk(4000)
        let messages = try #require(NATSPayload.changeMessages(change, store: "s", limit: 32 * 1024))
        #expect(messages.count > 2)
        for (index, message) in messages.enumerated() {
            let part = try #require(NATSPayload.part(of: message))
            #expect(part.index == index + 1 && part.count == messages.count)
        }
        #expect(NATSPayload.part(of: NATSPayload.change(TestChangeSets.bulk(4), store: "s")) == nil)
    }

    @Test func aChangeSetThatFitsIsOneUnmarkedMessage() throws {
        let change = TestChangeSets.bulk(8)
        let messages = try #require(NATSPayload.changeMessages(change, store: "s", limit: 1 << 20))
        #expect(messages == [NATSPayload.change(change, store: "s")])
        #expect(!String(decoding: messages[0], as: UTF8.self).contains("\"part\""))
    }

    @Test func aLargeChangeSetIsSplitIntoMarkedPartsUnderTheLimitThatGiveItBack() throws {
        let change = TestChangeSets.bulk(10_000)
        let limit = 64 * 1024
        #expect(NATSPayload.change(change, store: "s").count > limit * 8)
        let messages = try #require(NATSPayload.changeMessages(change, store: "s", limit: limit))
        #expect(messages.count > 8 && messages.count < 40, "\(messages.count) parts")
        var inserted: [Book] = []
        var updated: [BookUpdate] = []
        var deleted: [Book] = []
        for (index, message) in messages.enumerated() {
            #expect(message.count <= limit)
            #expect(
                message.starts(with: Array("{\"store\":\"s\",\"part\":\(index + 1),\"parts\":\(messages.count),".utf8)))
            guard case .event(let event) = try MessageDecoder().decode(message) else {
                Issue.record("part \(index + 1) is not an event")
                return
            }
            #expect(event.event == .change && event.epoch == "E" && event.seq == 7 && event.source == .client)
            inserted += event.inserted ?? []
            updated += event.updated ?? []
            deleted += event.deleted ?? []
        }
        #expect(inserted == change.changes.inserted)
        #expect(updated == change.changes.updated)
        #expect(deleted == change.changes.deleted)
    }

    @Test func aBookLargerThanTheLimitMakesTheChangeSetUnpublishable() {
        var change = TestChangeSets.bulk(4)
        change.changes.inserted.append(Book(id: "huge", name: String(repeating: "x", count: 70_000), author: "a"))
        #expect(NATSPayload.changeMessages(change, store: "s", limit: 64 * 1024) == nil)
    }

    @Test func partsHaveTheirOwnMessageIDsAndNameTheSeqBeforeUntilTheLast() {
        let naming = NATSNaming(prefix: "books", store: "default")
        let first = naming.messageID(epoch: "E", seq: 12, part: NATSMessagePart(index: 1, count: 3), token: "ab")
        let last = naming.messageID(epoch: "E", seq: 12, part: NATSMessagePart(index: 3, count: 3), token: "ab")
        #expect(first == "default:E:12:p1-3:tab")
        #expect(naming.position(fromMessageID: first) == ResumePoint(epoch: "E", seq: 11))
        #expect(naming.position(fromMessageID: last) == ResumePoint(epoch: "E", seq: 12))
        #expect(naming.position(fromMessageID: "default:E:12:tff") == ResumePoint(epoch: "E", seq: 12))
        #expect(naming.position(fromMessageID: "default:E:12:snapshot:tff") == ResumePoint(epoch: "E", seq: 12))
        #expect(naming.position(fromMessageID: "default:E:12:p4-3") == nil)
        #expect(naming.position(fromMessageID: "default:E:12:x") == nil)
    }
}
