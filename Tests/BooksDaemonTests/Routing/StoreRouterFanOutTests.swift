import BooksCore
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Testing

@testable import BooksDaemon

/// A broadcast of one store visits only that store's subscribers.
extension StoreRouterTests {
    @Test func aBroadcastVisitsOnlyItsStoresSubscribers() throws {
        let others = 1_000
        let rig = try Rig(["this": "1|Dune|Herbert\n", "other": "2|Emma|Austen\n"], maxClients: others + 16)
        defer { rig.stop() }
        var clients: [TestClient] = []
        for k in 0..<others {
            let c = try #require(rig.client())
            c.send(#"{"id":"s\#(k)","op":"subscribe","store":"other"}"#)
            #expect(c.readReply()?.ok == true)
            #expect(c.readEvent()?.event == .snapshot)
            clients.append(c)
        }
        let follower = try #require(rig.client())
        follower.send(#"{"id":"s","op":"subscribe","store":"this"}"#)
        #expect(follower.readReply()?.ok == true)
        #expect(follower.readEvent()?.event == .snapshot)
        #expect(rig.server.statistics.subscribers == others + 1)

        let (epoch, seq) = try #require(rig.directory.engine(named: "this")).position
        let before = rig.server.statistics.broadcastVisits
        let change = SequencedChangeSet(
            epoch: epoch, seq: seq + 1, source: .file, time: Date(timeIntervalSince1970: 1_700_000_000),
            changes: ChangeSet(inserted: [Book(id: "3", name: "Emma", author: "Austen")]))
        rig.server.post(.broadcast(change, store: "this"))
        let event = follower.readEvent()
        #expect(event?.event == .change && event?.store == "this" && event?.seq == seq + 1)
        // The counter is updated after the sends: wait for it, then it must be exactly one.
        eventuallyBlocking(timeout: 10) { rig.server.statistics.broadcastVisits > before }
        #expect(rig.server.statistics.broadcastVisits - before == 1)
    }
}

/// What a connection follows is the server thread's, kept with the connection: the router keeps
/// none of it.
extension StoreRouterTests {
    @Test func anotherRouterOverTheSameServerAnnouncesStoresToTheSubscribers() throws {
        let rig = try Rig(["a": "1|Dune|Herbert\n", "b": "2|Emma|Austen\n"])
        defer { rig.stop() }
        let sub = try #require(rig.client())
        sub.send(#"{"id":"s","op":"subscribe","stores":["*"],"snapshot":false}"#)
        #expect(sub.readReply()?.result?.subscribedStores == ["a", "b"])
        #expect(sub.readEvent()?.event == .subscribed)
        #expect(sub.readEvent()?.event == .subscribed)

        // A router made afresh over the same server and stores holds nothing of the first one's
        // requests, yet the subscriber of every store hears of the store added and follows it.
        let other = StoreRouter(server: rig.server, directory: rig.directory)
        rig.add("c", "5|Nana|Zola\n")
        other.storeAdded("c")
        let added = sub.readEvent()
        #expect(added?.event == .storeAdded && added?.store == "c")
        let followed = sub.readEvent()
        #expect(followed?.event == .subscribed && followed?.store == "c")
        _ = rig.directory.engines.withLock { $0.removeValue(forKey: "a") }
        other.storeRemoved("a", reason: "deleted")
        let removed = sub.readEvent()
        #expect(removed?.event == .storeRemoved && removed?.store == "a" && removed?.reason == "deleted")
        sub.send(#"{"id":"u","op":"unsubscribe","stores":["*"]}"#)
        #expect(sub.readReply()?.result?.subscribedStores == ["b", "c"], "a is no longer followed")
    }
}
