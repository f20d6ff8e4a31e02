// Guarantee 1 for `save` (docs/RELIABILITY.md): SIGKILL at any moment during saves leaves each
// save wholly applied or not at all — its inserts, its updates and its delete together — and every
// acknowledged save is in the file under the ids its reply gave. The batch scenario of
// `CrashSafetyTests`, with saves.
import BooksCore
import BooksPlatform
import BooksProtocol
import BooksTestSupport
import Foundation
import Testing

extension ReliabilitySuite {
    @Suite(.serialized)
    struct SaveCrashTests {
        static let writers = 3
        /// Rows `x<t>-<n>` a writer's save `n` deletes (saves past this number delete nothing).
        static let deletable = 400

        /// Per writer: the last save attempted, and the remap of each acknowledged save.
        struct Ledger {
            var attempted = [Int](repeating: 0, count: SaveCrashTests.writers)
            var acked: [Int: [String: String]] = [:]  // key t * 1_000_000 + n
            var stop = false
        }

        /// The ledger, shared by the writer threads and the checks.
        final class SharedLedger: Sendable {
            private let state = Locked(Ledger())
            func withLock<T>(_ body: (inout Ledger) -> T) -> T { state.withLock { body(&$0) } }
        }

        @Test func sigkillDuringSavesLeavesEachSaveWhollyAppliedOrNotAtAll() throws {
            let kills = Rel.knob("BOOKS_FAULT_KILLS", 10)
            var rng = SplitMix64(seed: UInt64(Rel.knob("BOOKS_FAULT_SEED", 3)))
            let dir = TemporaryDirectory.scratch("savecrash")
            var seed = BookFile.preservedLines
            for t in 0..<Self.writers {
                seed += ["p\(t)a|v0|pair", "p\(t)b|v0|pair"]
                seed += (1...Self.deletable).map { "x\(t)-\($0)|Doomed \($0)|Writer \(t)" }
            }
            Rel.writeRenameOver(dir.bookFile, BookFile.render(seed))
            let ledger = SharedLedger()
            var acks = 0
            for round in 0..<kills {
                let daemon = try DaemonProcess(file: dir.bookFile, socket: dir.socket, log: dir.log)
                ledger.withLock { $0.stop = false }
                let done = DispatchGroup()
                for t in 0..<Self.writers {
                    done.enter()
                    let socket = dir.socket
                    Thread {
                        defer { done.leave() }
                        Self.saverLoop(thread: t, socket: socket, ledger: ledger)
                    }.start()
                }
                MonotonicClock.sleep(seconds: Double(Int.random(in: 20...200, using: &rng)) / 1000)
                daemon.kill()
                ledger.withLock { $0.stop = true }
                done.wait()
                try Self.checkInvariants(dir: dir, ledger: ledger, round: round)
                acks = ledger.withLock { $0.acked.count }
            }
            #expect(acks > 0, "no save was acknowledged in \(kills) rounds: the scenario tested nothing")
            print("[reliability] save crash: \(kills) SIGKILLs, \(acks) acknowledged saves")
        }

        /// One writer: save `n` inserts two books, sets the writer's pair to `v<n>` and deletes
        /// `x<t>-<n>`, until the daemon dies.
        static func saverLoop(thread t: Int, socket: String, ledger: SharedLedger) {
            guard let client = try? RequestClient(socket: socket) else { return }
            while true {
                let n: Int? = ledger.withLock { l in
                    guard !l.stop else { return nil }
                    l.attempted[t] += 1
                    return l.attempted[t]
                }
                guard let n else { return }
                let request = Request(
                    id: client.makeID(), op: .save,
                    inserted: (0..<2).map { BookInsertion(tempId: "t\($0)", name: "S\(t)-\(n)", author: "Saver \(t)") },
                    updated: [BookPatch(id: "p\(t)a", name: "v\(n)"), BookPatch(id: "p\(t)b", name: "v\(n)")],
                    deleted: n <= deletable ? [BookDeletion(id: "x\(t)-\(n)")] : nil)
                guard let reply = try? client.request(request) else { return }
                if reply.ok, let remap = reply.result?.remap {
                    ledger.withLock { $0.acked[t * 1_000_000 + n] = remap }
                }
            }
        }

        static func checkInvariants(dir: TemporaryDirectory, ledger: SharedLedger, round: Int) throws {
            let bytes = try #require(TestFiles.readBytes(dir.bookFile), "round \(round): the book file is gone")
            let books = BookFile.books(bytes)
            let lines = Set(BookFile.lines(bytes))
            for kept in BookFile.preservedLines {
                #expect(lines.contains(kept), "round \(round): lost the line \(kept.debugDescription)")
            }
            #expect(BookFile.parse(bytes).bookCount == books.count, "round \(round): duplicate ids in the file")
            var inserted: [String: [Book]] = [:]
            for book in books.values where book.name.hasPrefix("S") { inserted[book.name, default: []].append(book) }
            ledger.withLock { l in
                for t in 0..<writers {
                    let a = books["p\(t)a"]?.name
                    #expect(a == books["p\(t)b"]?.name, "round \(round): writer \(t)'s pair half updated")
                    let value = Int(a?.dropFirst() ?? "") ?? -1
                    #expect(value <= l.attempted[t], "round \(round): pair at v\(value) beyond the last save")
                    for n in 1...max(l.attempted[t], 1) {
                        let rows = inserted["S\(t)-\(n)"] ?? []
                        let landed = rows.count == 2
                        #expect(rows.isEmpty || landed, "round \(round): save \(t)-\(n) inserted \(rows.count) of 2")
                        if n <= deletable {
                            #expect(
                                (books["x\(t)-\(n)"] == nil) == landed,
                                "round \(round): save \(t)-\(n): delete and inserts not applied together")
                        }
                        if n == value { #expect(landed, "round \(round): save \(t)-\(n) updated but did not insert") }
                        if let remap = l.acked[t * 1_000_000 + n] {
                            #expect(landed, "round \(round): acknowledged save \(t)-\(n) lost")
                            #expect(
                                Set(remap.values) == Set(rows.map(\.id)),
                                "round \(round): save \(t)-\(n): the remapped ids are not the ids in the file")
                        }
                    }
                }
            }
        }
    }
}
