import BooksCore
import BooksPlatform
import BooksProtocol
import BooksStore
import BooksTestSupport
import Testing

@testable import BooksDaemon

/// A fixed set of named engines (what the daemon's registry provides).
final class TestStoreDirectory: StoreDirectory {
    let engines: Locked<[String: BookEngine]>

    init(_ engines: [String: BookEngine]) { self.engines = Locked(engines) }

    func engine(named name: String) -> BookEngine? { engines.withLock { $0[name] } }
    var storeNames: [String] { engines.withLock { $0.keys.sorted() } }
}

/// The socket server routing requests to the engine of their store: real engines over real
/// files, a real socket, clients of both versions.
@Suite(.serialized) struct StoreRouterTests {
    /// A daemon in miniature: one engine per `files` entry (name → content), one server.
    final class Rig {
        let dir: TemporaryDirectory
        let server: SocketServer
        let router: StoreRouter
        let directory: TestStoreDirectory

        /// `maxClients`, when given, also lifts the per-uid limit (every test client has one uid).
        init(_ files: [String: String], maxClients: Int? = nil) throws {
            dir = try TemporaryDirectory(prefix: "booksync-router")
            var configuration = SocketServerConfiguration(path: dir.socketPath)
            if let maxClients {
                configuration.maxClients = maxClients
                configuration.maxClientsPerUID = 0
            }
            server = try SocketServer(configuration: configuration)
            directory = TestStoreDirectory([:])
            router = StoreRouter(server: server, directory: directory)
            for (name, text) in files { add(name, text) }
            try server.start(delegate: router)
        }

        @discardableResult
        func add(_ name: String, _ text: String) -> BookEngine {
            let path = dir.file("\(name).txt")
            try? TestFiles.write(text, to: path)
            var configuration = DaemonConfiguration()
            configuration.filePath = path
            let engine = BookEngine(
                configuration: configuration, store: TextBookStore(path: path), logger: Logger(backend: SilentLog()),
                storeName: (try? StoreName(name)) ?? .default, channel: router.channel(for: name))
            engine.load()
            directory.engines.withLock { $0[name] = engine }
            return engine
        }

        func client(version: Int = 2) -> TestClient? {
            guard let c = TestClient(path: dir.socketPath) else { return nil }
            c.send(#"{"id":"h","op":"hello","version":\#(version)}"#)
            guard c.readReply()?.result?.protocolVersion == version else { return nil }
            return c
        }

        func stop() {
            server.shutdown(reason: "test", timeout: .seconds(1))
            dir.remove()
        }
    }

    @Test func requestsGoToTheirStore() throws {
        let rig = try Rig(["fiction": "1|Dune|Herbert\n", "to-read": "7|Emma|Austen\n8|Ulysses|Joyce\n"])
        defer { rig.stop() }
        let c = try #require(rig.client())
        c.send(#"{"id":"1","op":"list","store":"to-read"}"#)
        #expect(c.readReply()?.result?.books?.map(\.id) == ["7", "8"])
        c.send(#"{"id":"2","op":"get","store":"fiction","ids":["1"]}"#)
        #expect(c.readReply()?.result?.books?.map(\.name) == ["Dune"])
        c.send(#"{"id":"3","op":"list","store":"nope"}"#)
        let unknown = c.readReply()
        #expect(unknown?.error?.code == .unknownStore && unknown?.error?.stores == ["fiction", "to-read"])
        c.send(#"{"id":"4","op":"list"}"#)
        let missing = c.readReply()
        #expect(missing?.error?.code == .storeRequired && missing?.error?.stores == ["fiction", "to-read"])
        c.send(#"{"id":"p","op":"ping"}"#)
        let pong = c.readReply()
        #expect(pong?.ok == true && pong?.result?.seq == nil, "ping needs no store; no default store here")
        c.send(#"{"id":"5","op":"stores"}"#)
        let stores = c.readReply()?.result?.stores
        #expect(stores?.map(\.name) == ["fiction", "to-read"])
        #expect(stores?.map(\.bookCount) == [1, 2] && stores?.allSatisfy { $0.state == "present" } == true)
        #expect(stores?.last?.path == rig.dir.file("to-read.txt"))
    }

    @Test func versionOneClientsUseTheDefaultStoreWithoutStoreFields() throws {
        let rig = try Rig(["default": "1|Dune|Herbert\n", "other": "2|Emma|Austen\n"])
        defer { rig.stop() }
        let c = try #require(rig.client(version: 1))
        c.send(#"{"id":"1","op":"list"}"#)
        #expect(c.readReply()?.result?.books?.map(\.id) == ["1"])
        c.send(#"{"id":"2","op":"subscribe"}"#)
        #expect(c.readReply()?.ok == true)
        let snapshot = c.readEvent()
        #expect(snapshot?.event == .snapshot && snapshot?.store == nil)
        c.send(#"{"id":"3","op":"insert","books":[{"id":"9","name":"Kim","author":"Kipling"}]}"#)
        var change: Event?
        for _ in 0..<3 where change == nil {
            guard let line = c.readLine() else { break }
            if case .event(let e) = try? MessageDecoder().decode(line), e.event == .change { change = e }
        }
        #expect(change?.inserted?.map(\.id) == ["9"] && change?.store == nil, "v1 events carry no store")
    }

    @Test func aSubscriberOfEveryStoreSeesEachChangeWithItsStore() throws {
        let rig = try Rig(["a": "1|Dune|Herbert\n", "b": "2|Emma|Austen\n"])
        defer { rig.stop() }
        let sub = try #require(rig.client())
        sub.send(#"{"id":"s","op":"subscribe","stores":["*"],"snapshot":false}"#)
        #expect(sub.readReply()?.result?.subscribedStores == ["a", "b"])
        var subscribed: [String: UInt64] = [:]
        for _ in 0..<2 {
            let e = sub.readEvent()
            #expect(e?.event == .subscribed)
            if let e, let store = e.store { subscribed[store] = e.seq }
        }
        #expect(subscribed.keys.sorted() == ["a", "b"])
        let writer = try #require(rig.client())
        writer.send(#"{"id":"w1","op":"insert","store":"b","books":[{"id":"3","name":"Kim","author":"Kipling"}]}"#)
        #expect(writer.readReply()?.ok == true)
        writer.send(#"{"id":"w2","op":"delete","store":"a","ids":["1"]}"#)
        #expect(writer.readReply()?.ok == true)
        let first = sub.readEvent()
        let second = sub.readEvent()
        #expect(first?.event == .change && first?.store == "b" && first?.inserted?.map(\.id) == ["3"])
        #expect(second?.event == .change && second?.store == "a" && second?.deleted?.map(\.id) == ["1"])
        #expect(first?.seq == (subscribed["b"] ?? 0) + 1 && second?.seq == (subscribed["a"] ?? 0) + 1)

        // A store added later is followed too; a removed one is announced.
        rig.add("c", "5|Nana|Zola\n")
        rig.router.storeAdded("c")
        let added = sub.readEvent()
        #expect(added?.event == .storeAdded && added?.store == "c")
        let followed = sub.readEvent()
        #expect(followed?.event == .subscribed && followed?.store == "c")
        _ = rig.directory.engines.withLock { $0.removeValue(forKey: "a") }
        rig.router.storeRemoved("a", reason: "deleted")
        let removed = sub.readEvent()
        #expect(removed?.event == .storeRemoved && removed?.store == "a" && removed?.reason == "deleted")
    }

    @Test func resumePointsArePerStore() throws {
        let rig = try Rig(["a": "1|Dune|Herbert\n", "b": "2|Emma|Austen\n"])
        defer { rig.stop() }
        let writer = try #require(rig.client())
        for k in 0..<3 {
            writer.send(#"{"id":"w\#(k)","op":"insert","store":"a","books":[{"name":"N\#(k)","author":"A"}]}"#)
            #expect(writer.readReply()?.ok == true)
        }
        let epochA = try #require(rig.directory.engine(named: "a")?.position.epoch)
        let epochB = try #require(rig.directory.engine(named: "b")?.position.epoch)
        let sub = try #require(rig.client())
        sub.send(
            #"{"id":"s","op":"subscribe","stores":["a","b"],"resumes":{"a":{"epoch":"\#(epochA)","seq":1},"#
                + #""b":{"epoch":"\#(epochB)","seq":0}}}"#)
        #expect(sub.readReply()?.result?.subscribedStores == ["a", "b"])
        var replayedA: [UInt64] = []
        var sawB = false
        // subscribed(a), change 2, change 3, subscribed(b): nothing to replay for b, no snapshot.
        for _ in 0..<4 {
            guard let e = sub.readEvent() else { break }
            if e.store == "a" && e.event == .change { replayedA.append(e.seq) }
            if e.store == "b" && e.event == .subscribed { sawB = true }
        }
        #expect(replayedA == [2, 3], "store a resumes after its seq 1")
        #expect(sawB)
        sub.send(#"{"id":"p","op":"ping","store":"b"}"#)
        #expect(sub.readReply()?.id == "p", "nothing else was sent before the ping's reply")
    }

    @Test func anUnsubscribeRightAfterAMultiStoreSubscribeLeavesNothingAfterItsReply() throws {
        let rig = try Rig(["a": "1|Dune|Herbert\n", "b": "2|Emma|Austen\n"])
        defer { rig.stop() }
        let sub = try #require(rig.client())
        // Pipelined: the unsubscribe is read while the engines may still hold the subscribe's parts.
        sub.send(
            #"{"id":"s","op":"subscribe","stores":["*"]}"# + "\n" + #"{"id":"u","op":"unsubscribe","stores":["*"]}"#)
        var lines: [String] = []
        while let line = sub.readLine().map({ String(decoding: $0, as: UTF8.self) }) {
            lines.append(line)
            if line.contains(#""id":"u""#) { break }
        }
        #expect(lines.last?.contains(#""subscribedStores":["a","b"]"#) == true, "\(lines)")
        let writer = try #require(rig.client())
        writer.send(#"{"id":"w","op":"insert","store":"a","books":[{"name":"Kim","author":"Kipling"}]}"#)
        #expect(writer.readReply()?.ok == true)
        sub.send(#"{"id":"p","op":"ping","store":"a"}"#)
        let next = sub.readLine().map { String(decoding: $0, as: UTF8.self) }
        #expect(next?.contains(#""id":"p""#) == true, "no event after the unsubscribe reply: \(next ?? "nil")")
    }
}
