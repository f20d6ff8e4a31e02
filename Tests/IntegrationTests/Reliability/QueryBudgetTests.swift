import BooksCore
import BooksProtocol
import BooksTestSupport
import Testing

extension ReliabilitySuite {
    /// CPU: one client's costly queries must not hold up other clients. Requests are
    /// answered one at a time on the engine's queue; `query_budget_ms` stops a query that runs
    /// too long, so another client's `get` waits at most about one budget, and `ping` (answered on
    /// the socket thread) not at all.
    @Suite(.serialized)
    struct QueryBudgetTests {
        static let books = 20_000
        /// A value that occurs in no book. It is not plain ASCII, so it is searched by Characters
        /// (the slow path, which an attacker can always choose): `contains` tries it at every
        /// position of every name, about 0.05 ms a book, so the whole filter takes about a second
        /// without a budget (debug build, unloaded machine).
        static let heavyFilter = BookFilter(
            (0..<64).map { BookCondition(.name, $0 % 2 == 0 ? .contains : .containsIgnoringCase, Self.absent($0)) })

        static func absent(_ n: Int) -> String { "\u{FC}" + String(repeating: "x", count: 1000) + "\(n)" }

        /// booksd on a file of `books` padded books with `query_budget_ms` set.
        static func startDaemon(_ name: String, budgetMilliseconds: Int) throws -> (TemporaryDirectory, DaemonProcess) {
            let dir = TemporaryDirectory.scratch(name)
            let padding = String(repeating: "lorem ipsum ", count: 40)
            Rel.writeRenameOver(
                dir.bookFile,
                BookFile.render((0..<Self.books).map { "b\($0)|Name \($0) \(padding)|Author \($0)" }))
            let daemon = try DaemonProcess(
                file: dir.bookFile, socket: dir.socket, log: dir.log,
                extra: ["--set", "query_budget_ms=\(budgetMilliseconds)"], logLevel: "notice")
            return (dir, daemon)
        }

        @Test func aCostlyQueryIsStoppedAndDoesNotDelayOtherClients() throws {
            let (dir, daemon) = try Self.startDaemon("budget", budgetMilliseconds: 50)
            let heavy = try RequestClient(socket: dir.socket)
            let other = try RequestClient(socket: dir.socket)

            var pings: [Double] = []
            var gets: [Double] = []
            var refusals: [Reply] = []
            var refusalSeconds: [Double] = []
            var outstanding: (id: String, sent: Double)?
            let end = MonotonicClock.seconds() + 3
            while MonotonicClock.seconds() < end {
                if outstanding == nil {
                    let request = Request(id: heavy.makeID(), op: .list, filter: Self.heavyFilter)
                    try heavy.send(request)
                    outstanding = (request.id, MonotonicClock.seconds())
                }
                if let (id, sent) = outstanding, case .reply(let reply)? = heavy.readMessage(timeout: 0.001) {
                    #expect(reply.id == id)
                    refusals.append(reply)
                    refusalSeconds.append(MonotonicClock.seconds() - sent)
                    outstanding = nil
                }
                var start = MonotonicClock.seconds()
                #expect(try other.request(Request(id: other.makeID(), op: .ping), timeout: 10).ok)
                pings.append(MonotonicClock.seconds() - start)
                start = MonotonicClock.seconds()
                let get = try other.request(
                    Request(id: other.makeID(), op: .get, ids: ["b\(pings.count)"]), timeout: 10)
                gets.append(MonotonicClock.seconds() - start)
                #expect(get.result?.books?.first?.id == "b\(pings.count)")
            }
            if let (id, _) = outstanding { refusals.append(try heavy.awaitReply(id: id, timeout: 10)) }

            // The costly client got a clear error, quickly, each time, and may go on.
            #expect(refusals.count >= 3)
            for reply in refusals {
                #expect(reply.error?.code == .queryTooExpensive)
                #expect(reply.error?.message.contains("budget of 50 ms (query_budget_ms)") == true)
                #expect(reply.error?.message.contains("of \(Self.books) books") == true)
            }
            #expect((refusalSeconds.max() ?? .infinity) < 2, "a refusal took \((refusalSeconds.max() ?? .infinity)) s")
            let plain = try heavy.request(Request(id: heavy.makeID(), op: .list, limit: 2))
            #expect(plain.result?.books?.count == 2)
            #expect(plain.result?.total == Self.books)

            // The other client was not held up: without the budget each `get` would wait for a whole
            // costly query (seconds). The bounds leave room for a loaded 2-core machine.
            let p90 = { (samples: [Double]) in samples.sorted()[samples.count * 9 / 10] }
            print(
                """
                query budget: \(refusals.count) refusals (max \((refusalSeconds.max() ?? .infinity)) s); \(pings.count) pings \
                p90 \(p90(pings) * 1000) ms max \((pings.max() ?? .infinity) * 1000) ms; gets p90 \(p90(gets) * 1000) ms \
                max \((gets.max() ?? .infinity) * 1000) ms
                """)
            #expect(pings.count >= 10)
            #expect(p90(pings) < 0.2)
            #expect(p90(gets) < 0.2)
            #expect((gets.max() ?? .infinity) < 1)
            #expect(daemon.isRunning)
        }

        /// Ten connections each looping costly `list`s just under the budget (one outstanding
        /// each) must not make another connection's `get` wait for all of them: reads are
        /// scheduled fairly between connections (a connection that used the engine least goes
        /// first), so the `get` waits for at most the one costly query already running.
        @Test func heavyReadersOnOtherConnectionsDoNotStallAGet() throws {
            let (dir, daemon) = try Self.startDaemon("fair", budgetMilliseconds: 150)
            let flag = StopFlag()
            let group = ThreadGroup()
            let socket = dir.socket
            for _ in 0..<10 {
                group.spawn {
                    guard let heavy = try? RequestClient(socket: socket) else { return }
                    defer { heavy.close() }
                    while !flag.isStopped {
                        let request = Request(id: heavy.makeID(), op: .list, filter: Self.heavyFilter)
                        guard let reply = try? heavy.request(request, timeout: 30) else { return }
                        flag.count(reply.error?.code == .queryTooExpensive ? "refused" : "other")
                    }
                }
            }
            let other = try RequestClient(socket: dir.socket)
            // Every costly reader has run (twice, in all): none is new to the scheduler any more.
            #expect(eventuallyBlocking(timeout: 30, interval: 0.05) { flag["refused"] >= 20 })
            var gets: [Double] = []
            let end = MonotonicClock.seconds() + 4
            while MonotonicClock.seconds() < end {
                let start = MonotonicClock.seconds()
                let get = try other.request(
                    Request(id: other.makeID(), op: .get, ids: ["b\(gets.count)"]), timeout: 20)
                gets.append(MonotonicClock.seconds() - start)
                #expect(get.result?.books?.first?.id == "b\(gets.count - 1)")
                MonotonicClock.sleep(seconds: 0.02)
            }
            flag.stop()
            group.wait()
            let p90 = gets.sorted()[gets.count * 9 / 10]
            print(
                """
                fair reads: \(flag["refused"]) costly queries refused; \(gets.count) gets p90 \(p90 * 1000) ms \
                max \((gets.max() ?? .infinity) * 1000) ms
                """)
            #expect(flag["other"] == 0)
            #expect(gets.count >= 5)
            // Before: each get waited behind the ten queued costly queries (1.5 s and more).
            #expect(p90 < 0.5, "get p90 \(p90 * 1000) ms behind ten costly readers")
            #expect(daemon.isRunning)
        }
    }
}
