import BooksCore
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksDaemon
@testable import BooksProtocol

/// The stream's last message is believed only when it is one booksd wrote (checked against the
/// local history): a forged message cannot replace a change set or stop publishing.
@Suite struct NATSStreamCheckTests {
    let check = NATSStreamCheck(naming: NATSNaming(prefix: "books", store: "default"), epoch: "E")
    let naming = NATSNaming(prefix: "books", store: "default")

    func change(_ seq: UInt64, _ id: String = "b") -> SequencedChangeSet {
        SequencedChangeSet(
            epoch: "E", seq: seq, source: .file, time: Date(timeIntervalSince1970: 0),
            changes: ChangeSet(inserted: [Book(id: id, name: "n", author: "a")]))
    }

    @Test func aChangeSetBooksdWroteIsBelieved() {
        let local = change(5)
        let id = naming.messageID(epoch: "E", seq: 5, token: "1f")
        #expect(check.seqToCompare(messageID: id) == 5)
        let verdict = check.verdict(
            data: NATSPayload.change(local, store: "default"), messageID: id, latestSeq: 5, local: local)
        #expect(verdict == .position(ResumePoint(epoch: "E", seq: 5)))
    }

    @Test func aForgedChangeSetWithTheNextSeqIsNotBelieved() {
        let forged = NATSPayload.change(change(6, "forged"), store: "default")
        let verdict = check.verdict(
            data: forged, messageID: "default:E:6", latestSeq: 6, local: change(6, "real"))
        guard case .untrusted(let reason) = verdict else {
            Issue.record("believed: \(verdict)")
            return
        }
        #expect(reason.contains("differs from the local history"))
    }

    @Test func aForgedSeqFarAheadIsNotBelieved() {
        let forged = NATSPayload.change(change(9999), store: "default")
        let verdict = check.verdict(data: forged, messageID: "default:E:9999", latestSeq: 6, local: nil)
        #expect(verdict == .untrusted("change set 9999 is ahead of this booksd's seq 6"))
        let marker = NATSPayload.snapshotMarker(store: "default", epoch: "E", seq: 9999, books: 0, bucket: "b")
        guard
            case .untrusted = check.verdict(
                data: marker, messageID: "default:E:9999:snapshot", latestSeq: 6, local: nil)
        else {
            Issue.record("a snapshot marker ahead of the engine was believed")
            return
        }
    }

    @Test func aPartIsComparedWithItsChangeSetAndNamesTheSeqBefore() throws {
        let local = TestChangeSets.bulk(2000, seq: 8)
        let parts = try #require(NATSPayload.changeMessages(local, store: "default", limit: 32 * 1024))
        let id = naming.messageID(epoch: "E", seq: 8, part: NATSMessagePart(index: 1, count: parts.count))
        #expect(check.seqToCompare(messageID: id) == 8)
        #expect(
            check.verdict(data: parts[0], messageID: id, latestSeq: 8, local: local)
                == .position(ResumePoint(epoch: "E", seq: 7)))
        guard case .untrusted = check.verdict(data: parts[0], messageID: id, latestSeq: 8, local: change(8)) else {
            Issue.record("a part of another change set was believed")
            return
        }
    }

    @Test func messagesOfAnotherLineageOrNoneAreBelievedAndGarbageIsNot() {
        #expect(check.verdict(data: nil, messageID: nil, latestSeq: 3, local: nil) == .position(nil))
        #expect(
            check.verdict(data: Array("{}".utf8), messageID: "default:OLD:4", latestSeq: 3, local: nil)
                == .position(ResumePoint(epoch: "OLD", seq: 4)))
        guard
            case .untrusted = check.verdict(data: Array("{}".utf8), messageID: "default:E:2", latestSeq: 3, local: nil),
            case .untrusted = check.verdict(data: Array("{}".utf8), messageID: nil, latestSeq: 3, local: nil)
        else {
            Issue.record("garbage was believed")
            return
        }
    }
}
