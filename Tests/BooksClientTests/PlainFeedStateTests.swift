import BooksClient
import BooksCore
import BooksProtocol
import Testing

/// The feed without mirror: position only, replays skipped, a gap reported once.
@Suite struct PlainFeedStateTests {
    let a = Book(id: "a", name: "Dune", author: "Herbert")

    func change(_ seq: UInt64, epoch: String = "E1") -> FeedItem {
        .change(FeedChange(epoch: epoch, seq: seq, source: .file, changes: ChangeSet(inserted: [a])))
    }

    @Test func startsAtTheSubscribePositionAndSkipsReplays() {
        var state = PlainFeedState()
        #expect(state.apply(.subscribed(ResumePoint(epoch: "E1", seq: 5))) == nil)
        #expect(state.resumePoint == ResumePoint(epoch: "E1", seq: 5))
        #expect(state.apply(change(5)) == nil, "already seen")
        #expect(state.apply(change(6))?.origin == .live)
        #expect(state.apply(.heartbeat(ResumePoint(epoch: "E1", seq: 9))) == nil)
        #expect(state.resumePoint?.seq == 9)
        // A resumed connection: its reply's position must not skip the replay that follows.
        #expect(state.apply(.subscribed(ResumePoint(epoch: "E1", seq: 12))) == nil)
        #expect(state.resumePoint?.seq == 9)
        #expect(state.apply(change(10))?.seq == 10)
    }

    @Test func aGapIsOneMarkerAndTheFeedGoesOn() {
        var state = PlainFeedState()
        _ = state.apply(.subscribed(ResumePoint(epoch: "E1", seq: 1)))
        let marker = state.apply(.resyncRequired(epoch: "E2", seq: 3, reason: "different-epoch"))
        #expect(marker?.origin == .resyncRequired && marker?.reason == "different-epoch")
        #expect(marker?.changes.isEmpty == true && marker?.seq == 3 && marker?.epoch == "E2")
        #expect(state.apply(change(3, epoch: "E2")) == nil)
        #expect(state.apply(change(4, epoch: "E2"))?.seq == 4)
    }
}
