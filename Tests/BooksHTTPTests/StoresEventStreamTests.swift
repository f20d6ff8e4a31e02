import BooksCore
import BooksProtocol
import Testing

@testable import BooksHTTP

/// The feed of several stores: its event ids (every store's position), per-store order and
/// duplicates, `store-added` / `store-removed`, and the route `/v1/changes`.
@Suite struct StoresEventStreamTests {
    static func change(_ store: String, _ seq: UInt64, epoch: String = "E") -> Event {
        Event(
            event: .change, epoch: epoch, seq: seq, inserted: [Book(id: "\(store)\(seq)", name: "N", author: "A")],
            store: store)
    }

    static func frames(_ stream: inout EventStream) -> [(id: String, event: String)] {
        var text = ""
        while case .bytes(let bytes) = stream.read(maxBytes: 1 << 20) { text += String(decoding: bytes, as: UTF8.self) }
        return text.split(separator: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }),
                let name = lines.first(where: { $0.hasPrefix("event: ") })
            else { return nil }
            return (String(id.dropFirst(4)), String(name.dropFirst(7)))
        }
    }

    @Test func idsNameEveryStoresPositionAndRoundTrip() {
        let positions = [
            "default": ResumePoint(epoch: "E1", seq: 4), "a,b=c%": ResumePoint(epoch: "E2", seq: 0),
            "ü": ResumePoint(epoch: "E3", seq: 9),
        ]
        let id = StoresEventID.format(positions)
        #expect(id == "a%2Cb%3Dc%25=E2:0,default=E1:4,%C3%BC=E3:9")
        #expect(StoresEventID.parse(id) == positions)
        #expect(StoresEventID.parse("") == [:])
        #expect(StoresEventID.parse("default") == nil)
        #expect(StoresEventID.parse("a=E:1,a=E:2") == nil)
        #expect(StoresEventID.parse("a=E:x") == nil)
        #expect(StoresEventID.parse("%zz=E:1") == nil)
    }

    @Test func eachStoreInOrderOnceWithAllPositionsInEveryID() {
        var stream = EventStream(stores: 1 << 20)
        var queued: [Bool] = []  // each offer as expected (true: queued; a leading ! in the line: dropped)
        stream.follow("a", from: ResumePoint(epoch: "E", seq: 2))
        stream.follow("b", from: ResumePoint(epoch: "F", seq: 0))
        queued.append(!stream.offer(Self.change("a", 2)))
        queued.append(stream.offer(Self.change("a", 3)))
        queued.append(stream.offer(Self.change("b", 1, epoch: "F")))
        queued.append(!stream.offer(Self.change("a", 3)))
        queued.append(stream.offer(Event(event: .storeAdded, epoch: "G", seq: 5, store: "c")))
        queued.append(stream.offer(Event(event: .heartbeat, epoch: "E", seq: 3, store: "a")))
        queued.append(stream.offer(Event(event: .storeRemoved, epoch: "", seq: 0, reason: "gone", store: "b")))
        queued.append(!stream.offer(Event(event: .change, epoch: "E", seq: 9)))
        #expect(queued.allSatisfy { $0 }, "\(queued)")
        let frames = Self.frames(&stream)
        #expect(frames.map(\.event) == ["change", "change", "store-added", "store-removed"])
        #expect(
            frames.map(\.id) == [
                "a=E:3,b=F:0", "a=E:3,b=F:1", "a=E:3,b=F:1,c=G:5", "a=E:3,c=G:5",
            ])
    }

    @Test func theRouteOfSeveralStores() {
        func head(
            _ query: [String: String], _ headers: [String: String] = ["Accept": "text/event-stream"]
        )
            -> HTTPRequestHead
        {
            HTTPRequestHead(
                method: "GET", path: "/v1/changes", query: query, headers: headers.merging(["Host": "localhost"]) { $1 }
            )
        }
        let router = HTTPRouter(
            policy: HTTPSecurityPolicy(
                hosts: ["localhost"], ports: [], tokens: nil, requireIfMatch: false, maxBodyBytes: 1 << 20))
        #expect(router.decide(head(["stores": "*"])) == .route(.storesChanges(HTTPStoresFeedQuery(stores: nil))))
        #expect(
            router.decide(head(["stores": "a,b", "since": "a=E:3"]))
                == .route(
                    .storesChanges(
                        HTTPStoresFeedQuery(stores: ["a", "b"], resumes: ["a": ResumePoint(epoch: "E", seq: 3)]))
                ))
        #expect(
            router.decide(head(["stores": "a", "feed": "longpoll", "timeout": "5"], [:]))
                == .route(.storesChanges(HTTPStoresFeedQuery(stores: ["a"], longPoll: true, timeoutSeconds: 5))))
        for bad in [[:], ["stores": ""], ["stores": "a,,b"], ["stores": "a,*"], ["stores": "a", "since": "E:3"]] {
            guard case .respond(let response) = router.decide(head(bad)) else {
                Issue.record("\(bad) was routed")
                continue
            }
            #expect(response.status == 400)
        }
        guard case .respond(let refused) = router.decide(head(["stores": "*"], ["Accept": "application/json"])) else {
            Issue.record("no 406")
            return
        }
        #expect(refused.status == 406)
    }
}
