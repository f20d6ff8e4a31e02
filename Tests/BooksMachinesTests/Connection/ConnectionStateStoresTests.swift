import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// A connection following several stores: one resume point and filter per store, broadcasts of
/// one store never advancing another's, unsubscribing one store or all, the negotiated version.
@Suite struct ConnectionStateStoresTests: ConnectionMachineSuite {
    private let austen = BookFilter([BookCondition(.author, .equals, "Jane Austen")])

    private func helloedV2() -> ConnectionStateMachine {
        var m = ConnectionStateMachine()
        _ = m.bytesReceived(line(#"{"id":"h","op":"hello","version":2}"#))
        return m
    }

    @Test func eachStoreHasItsOwnResumePointAndFilter() {
        var m = helloedV2()
        #expect(m.namesStores)
        let r1 = m.subscriptionStarted(store: "fiction", filter: austen, afterSeq: 10)
        #expect(r1)
        let r2 = m.subscriptionStarted(store: "to-read", filter: .all, afterSeq: 2)
        #expect(r2)
        #expect(m.subscriptions.stores == ["fiction", "to-read"])
        // Seq 5 is old for fiction, new for to-read: sequence numbers are per store.
        let r3 = m.acceptBroadcast(store: "fiction", seq: 5)
        #expect(r3 == nil)
        let r4 = m.acceptBroadcast(store: "to-read", seq: 5)
        #expect(r4 == .all)
        let r5 = m.acceptBroadcast(store: "fiction", seq: 11)
        #expect(r5 == austen)
        #expect(m.subscriptions.byStore["fiction"]?.afterSeq == 11)
        #expect(m.subscriptions.byStore["to-read"]?.afterSeq == 5)
        let r6 = m.acceptBroadcast(store: "other", seq: 99)
        #expect(r6 == nil, "a store not followed")
        let r7 = m.acceptBroadcast(seq: 99)
        #expect(r7 == nil, "the unnamed store is not followed either")
        #expect(m.acceptsHeartbeat(store: "to-read", seq: 5) && !m.acceptsHeartbeat(store: "to-read", seq: 4))
        #expect(!m.acceptsHeartbeat(store: "other", seq: 100))
    }

    @Test func stoppingOneStoreKeepsTheOthers() {
        var m = helloedV2()
        _ = m.subscriptionStarted(store: "a", filter: .all, afterSeq: 0)
        _ = m.subscriptionStarted(store: "b", filter: .all, afterSeq: 0)
        let r8 = m.subscriptionStopped(store: "a")
        #expect(r8)
        #expect(m.isSubscribed && m.subscriptions.stores == ["b"])
        let again = m.subscriptionStopped(store: "a")
        #expect(!again, "already stopped")
        let r9 = m.acceptBroadcast(store: "a", seq: 1)
        #expect(r9 == nil)
        let r10 = m.subscriptionStopped(store: "b")
        #expect(r10)
        #expect(m.state == .active && !m.isSubscribed, "no store left: active again")

        _ = m.subscriptionStarted(store: "a", filter: .all, afterSeq: 0)
        _ = m.subscriptionStarted(store: "b", filter: .all, afterSeq: 0)
        let all = m.subscriptionStopped(store: nil)
        #expect(all && m.state == .active, "nil stops every store")
    }

    @Test func replacingAStoresSubscriptionKeepsOthers() {
        var m = helloedV2()
        _ = m.subscriptionStarted(store: "a", filter: austen, afterSeq: 3)
        _ = m.subscriptionStarted(store: "b", filter: .all, afterSeq: 4)
        _ = m.subscriptionStarted(store: "a", filter: .all, afterSeq: 9)
        #expect(
            m.state
                == .subscribed(
                    StoreSubscriptions([
                        "a": .init(filter: .all, afterSeq: 9), "b": .init(filter: .all, afterSeq: 4),
                    ])))
    }

    @Test func versionOneConnectionsDoNotNameStores() {
        var m = helloed()
        #expect(m.version == 1 && !m.namesStores)
        let r11 = m.subscriptionStarted(store: "default", filter: .all, afterSeq: 0)
        #expect(r11)
        let r12 = m.acceptBroadcast(store: "default", seq: 1)
        #expect(r12 == .all)
    }

    @Test func storesIsDeliveredAloneAndNoStoreBeforeHello() {
        #expect(ConnectionStateMachine.isExclusive(.stores))
        var fresh = ConnectionStateMachine()
        let early = fresh.subscriptionStarted(store: "a", filter: .all, afterSeq: 0)
        #expect(!early)
        var m = helloedV2()
        let actions = m.bytesReceived(line(#"{"id":"1","op":"stores"}"#) + line(#"{"id":"2","op":"ping"}"#))
        #expect(delivered(actions) == ["1"], "the ping waits for the stores reply")
    }

    @Test func shutdownNoticeIsQueuedForAMultiStoreSubscriber() {
        var m = helloedV2()
        _ = m.subscriptionStarted(store: "a", filter: .all, afterSeq: 0)
        _ = m.subscriptionStarted(store: "b", filter: .all, afterSeq: 0)
        let notice = Array("two lines\n".utf8)
        let actions = m.beginShutdown(subscriberNotice: notice)
        #expect(actions.contains(.send(notice)))
        #expect(m.state == .draining(from: .subscribed))
    }
}
