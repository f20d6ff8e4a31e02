// Guarantee 4 (docs/RELIABILITY.md): hostile clients (a thousand silent connections, byte-by-byte
// trickles, a 100 MiB line, invalid UTF-8, deeply nested JSON, connect/disconnect storms) cannot
// starve a well-behaved subscriber: it still gets every change, its latency stays within a small
// factor of the quiet case, and the daemon's memory stays bounded.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var counts: [String: Int] = [:]
    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
    func count(_ key: String, _ n: Int = 1) {
        lock.lock()
        counts[key, default: 0] += n
        lock.unlock()
    }
    private var notes: [String: String] = [:]
    subscript(key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[key, default: 0]
    }
    func note(_ key: String, _ text: String) {
        lock.lock()
        notes[key] = text
        lock.unlock()
    }
    var summary: String {
        lock.lock()
        defer { lock.unlock() }
        return
            (counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + notes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

extension ReliabilitySuite {
    @Suite(.serialized)
    struct HostileClientTests {
        /// Connects without hello; nil when refused.
        static func rawConnect(_ socket: String) -> RequestClient? { try? RequestClient(socket: socket, hello: false) }

        /// Measures `count` write→event latencies on a subscriber; checks seqs have no gap or duplicate.
        static func measure(
            _ count: Int, tag: String, writer: RequestClient, subscriber: RequestClient,
            lastSeq: inout UInt64
        ) throws -> [Double] {
            var latencies: [Double] = []
            for n in 0..<count {
                let name = "\(tag)\(n)"
                let request = Request(id: writer.makeID(), op: .update, patches: [BookPatch(id: "lat", name: name)])
                let start = MonotonicClock.seconds()
                try writer.send(request)
                var got = false
                while !got {
                    guard case .event(let event)? = subscriber.readMessage(timeout: 10) else {
                        throw TestSupportError("subscriber got no event for \(name)")
                    }
                    guard event.event == .change else { continue }
                    #expect(event.seq == lastSeq + 1, "subscriber saw seq \(event.seq) after \(lastSeq)")
                    lastSeq = event.seq
                    if event.updated?.contains(where: { $0.new.name == name }) == true {
                        latencies.append(MonotonicClock.seconds() - start)
                        got = true
                    }
                }
                let reply = try writer.awaitReply(id: request.id)
                #expect(reply.ok)
            }
            return latencies.sorted()
        }

        @Test func hostileClientsDoNotStarveASubscriber() throws {
            let dir = TemporaryDirectory.scratch("clients")
            Rel.writeRenameOver(
                dir.bookFile,
                BookFile.render(
                    BookFile.preservedLines + ["lat|L|Latency"]
                        + (0..<50).map { "b\($0)|Name \($0)|Author \($0)" }))
            // max_clients is raised from 1024: the connect/disconnect loops leave closed connections
            // the daemon has not reaped yet, which next to the 1000 silent ones can reach the limit, so
            // the 100 MiB line was sometimes refused at accept ("too many clients (limit 1024)",
            // 1 run in 6 under a CPU hog) instead of being cut with `too-large`.
            let daemon = try DaemonProcess(
                file: dir.bookFile, socket: dir.socket, log: dir.log,
                extra: ["--set", "hello_timeout_seconds=30", "--set", "max_clients=4096"], logLevel: "notice")
            let writer = try RequestClient(socket: dir.socket)
            let subscriber = try RequestClient(socket: dir.socket)
            let sub = try subscriber.request(Request(id: "s", op: .subscribe))
            var lastSeq = try #require(sub.result?.seq)
            _ = subscriber.readMessage(timeout: 5)  // snapshot

            let quietMemory = daemon.memory
            let quiet = try Self.measure(40, tag: "Q", writer: writer, subscriber: subscriber, lastSeq: &lastSeq)

            // 1. A thousand connections that never speak: all accepted and held (root is exempt from
            // max_clients_per_uid).
            var silent: [RequestClient] = []
            for _ in 0..<1000 { if let c = Self.rawConnect(dir.socket) { silent.append(c) } }
            #expect(silent.count == 1000, "only \(silent.count) of 1000 silent connections could connect")
            var heldClients = 0
            let held = eventuallyBlocking(timeout: 10) {
                heldClients = (try? writer.status())?.clients ?? 0
                return heldClients >= 1002
            }
            #expect(held, "the daemon holds \(heldClients) clients, expected the 1000 silent ones + 2")

            let flag = StopFlag()
            let group = ThreadGroup()
            let spawn = group.spawn
            let socket = dir.socket
            // 2. Partial lines trickled byte by byte (never finished).
            spawn {
                var trickles: [RequestClient] = []
                for _ in 0..<10 { if let c = Self.rawConnect(socket) { trickles.append(c) } }
                flag.count("trickleConnections", trickles.count)
                let line = Array(
                    #"{"id":"t","op":"hello","version":1,"client":"trickle-trickle-trickle-trickle"}"#.utf8)
                var i = 0
                while !flag.isStopped {
                    for c in trickles { try? c.sendRaw([line[i % line.count]]) }
                    i += 1
                    flag.count("trickleBytes", trickles.count)
                    usleep(1000)
                }
            }
            // 3. A 100 MiB line, sent until the daemon cuts it (not stopped with the others: the
            // daemon must end it by itself).
            spawn {
                guard let c = Self.rawConnect(socket) else { return }
                let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
                var sent = 0
                while sent < 100 << 20 {
                    do { try c.sendRaw(chunk) } catch { break }
                    sent += chunk.count
                }
                flag.count("bigLineKiBSent", sent >> 10)
                let answer = c.readLine(timeout: 5).map { String(decoding: $0, as: UTF8.self) } ?? "(closed)"
                if answer.contains("too-large") { flag.count("bigLineRefused") }
                if c.connection.isClosedByPeer(timeout: 5) { flag.count("bigLineClosed") }
                flag.note("bigLineAnswer", String(answer.prefix(200)))
            }
            // 4. Invalid UTF-8 and deeply nested JSON, after a valid hello: each answered and refused.
            spawn {
                let nested = Array(
                    (String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n").utf8)
                let bad: [UInt8] =
                    Array(#"{"id":"u","op":"ping","client":""#.utf8) + [0xFF, 0xFE, 0xC0, 0x80] + Array("\"}\n".utf8)
                while !flag.isStopped {
                    for (payload, kind) in [(nested, "tooDeep"), (bad, "invalidUTF8")] {
                        guard let c = try? RequestClient(socket: socket) else { continue }
                        defer { c.close() }
                        guard (try? c.sendRaw(payload)) != nil else { continue }
                        flag.count(kind + "Sent")
                        if let line = c.readLine(timeout: 5) {
                            let text = String(decoding: line, as: UTF8.self)
                            if kind == "tooDeep", text.contains("too-deep") { flag.count("tooDeepRefused") }
                            if kind == "invalidUTF8", text.contains("invalid-utf8") { flag.count("invalidUTF8Refused") }
                        }
                    }
                }
            }
            // 5. Rapid connect/disconnect loops.
            for _ in 0..<2 {
                spawn {
                    while !flag.isStopped {
                        (try? LineClient(path: socket))?.close()
                        flag.count("connectCycles")
                    }
                }
            }
            MonotonicClock.sleep(seconds: 0.5)
            let loud = try Self.measure(40, tag: "L", writer: writer, subscriber: subscriber, lastSeq: &lastSeq)
            let loudMemory = daemon.memory
            flag.stop()
            group.wait()
            for c in silent { c.close() }
            silent.removeAll()
            MonotonicClock.sleep(seconds: 0.5)
            let afterMemory = daemon.memory
            let status = try writer.status()

            func p(_ xs: [Double], _ q: Double) -> Double { xs[min(xs.count - 1, Int(Double(xs.count) * q))] * 1000 }
            print(
                String(
                    format:
                        """
                        [reliability] hostile clients: subscriber latency quiet p50 %.2f ms p90 %.2f ms; under \
                        attack p50 %.2f ms p90 %.2f ms
                        """,
                    p(quiet, 0.5), p(quiet, 0.9), p(loud, 0.5), p(loud, 0.9)))
            print("[reliability] hostile clients: \(flag.summary)")
            print(
                """
                [reliability] hostile clients: VmRSS quiet \(quietMemory.rss) KiB, under attack \(loudMemory.rss) \
                KiB, after \(afterMemory.rss) KiB; VmHWM \(afterMemory.hwm) KiB
                """
            )
            #expect(daemon.isRunning)
            // Every hostile client was met as documented (the counts are printed above).
            #expect(flag["trickleConnections"] == 10 && flag["trickleBytes"] > 0, "\(flag.summary)")
            #expect(flag["bigLineRefused"] == 1, "the 100 MiB line was not refused with too-large: \(flag.summary)")
            #expect(flag["bigLineClosed"] == 1, "the connection of the 100 MiB line was not closed: \(flag.summary)")
            #expect(
                flag["bigLineKiBSent"] <= 4 << 10,
                "the daemon took \(flag["bigLineKiBSent"]) KiB of a line limited to 1 MiB before closing it")
            #expect(flag["tooDeepSent"] > 0 && flag["tooDeepRefused"] == flag["tooDeepSent"], "\(flag.summary)")
            #expect(
                flag["invalidUTF8Sent"] > 0 && flag["invalidUTF8Refused"] == flag["invalidUTF8Sent"], "\(flag.summary)")
            #expect(flag["connectCycles"] > 0, "\(flag.summary)")
            #expect(p(loud, 0.5) <= max(10 * p(quiet, 0.5), p(quiet, 0.5) + 50), "subscriber latency degraded too much")
            let hwm = afterMemory.hwm
            #expect(hwm > 0 && quietMemory.hwm > 0, "no VmHWM read from /proc/\(daemon.pid)/status")
            #expect(hwm < 256 * 1024, "daemon high-water mark \(hwm) KiB (a 100 MiB line must not be buffered)")
            #expect(status.subscribers == 1)
            daemon.stop()
        }
    }
}
