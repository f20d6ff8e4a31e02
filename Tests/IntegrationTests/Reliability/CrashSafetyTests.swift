// Guarantee 1 (docs/RELIABILITY.md): SIGKILL at any moment during client writes never loses an
// acknowledged write, never leaves a half-applied batch, never drops a comment or bad line, and a
// temporary file left by the killed writer is never taken for the book file.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

/// What the writer threads attempted and what the daemon acknowledged (guarded by `lock`).
final class WriteLedger: @unchecked Sendable {
    let lock = NSLock()
    var attemptedBatches: [String: [Book]] = [:]
    var ackedBatches: Set<String> = []
    var pairAttempted: [Int: Int] = [:]
    var pairAcked: [Int: Int] = [:]
    var acks = 0
    var stop = false

    func with<T>(_ body: (WriteLedger) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(self)
    }
}

extension ReliabilitySuite {
    @Suite(.serialized)
    struct CrashSafetyTests {
        static let writers = 3

        @Test func sigkillDuringClientWritesKeepsEveryAcknowledgedWrite() throws {
            let kills = Rel.knob("BOOKS_FAULT_KILLS", 15)
            var rng = SplitMix64(seed: UInt64(Rel.knob("BOOKS_FAULT_SEED", 1)))
            let dir = TemporaryDirectory.scratch("crash")
            var seed = BookFile.preservedLines
            for i in 0..<20 { seed.append("s\(i)|Seed \(i)|Author \(i)") }
            for t in 0..<Self.writers {
                seed.append("p\(t)a|v0|pair")
                seed.append("p\(t)b|v0|pair")
            }
            Rel.writeRenameOver(dir.bookFile, BookFile.render(seed))

            let ledger = WriteLedger()
            for t in 0..<Self.writers {
                ledger.pairAcked[t] = 0
                ledger.pairAttempted[t] = 0
            }
            var leftoversSeen = 0
            var totalAcks = 0
            for round in 0..<kills {
                let daemon = try DaemonProcess(file: dir.bookFile, socket: dir.socket, log: dir.log)
                // The restarted daemon serves exactly what the file holds (not a leftover temp file).
                let probe = try RequestClient(socket: dir.socket)
                let served = try probe.list().byID
                let onDisk = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])
                #expect(served == onDisk, "round \(round): served books differ from the file")
                let temps = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                    $0.hasPrefix(".books.txt.booksd-")
                }
                #expect(temps.isEmpty, "round \(round): stale temporary files not removed at start: \(temps)")
                probe.close()

                ledger.with { $0.stop = false }
                var threads: [Thread] = []
                let done = DispatchGroup()
                for t in 0..<Self.writers {
                    done.enter()
                    let socket = dir.socket
                    let thread = Thread {
                        defer { done.leave() }
                        Self.writerLoop(thread: t, round: round, socket: socket, ledger: ledger)
                    }
                    threads.append(thread)
                    thread.start()
                }
                MonotonicClock.sleep(seconds: Double(Int.random(in: 3...80, using: &rng)) / 1000)
                daemon.kill()
                ledger.with { $0.stop = true }
                done.wait()

                let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                    $0.hasPrefix(".books.txt.booksd-")
                }
                leftoversSeen += leftovers.count
                try Self.checkInvariants(dir: dir, ledger: ledger, round: round)
                // A decoy temporary file with plausible complete content must never be loaded.
                Rel.writeInPlace(dir.path + "/.books.txt.booksd-Zz9Yx8", BookFile.render(["decoy|Decoy|Decoy"]))
                totalAcks = ledger.with { $0.acks }
            }
            // Final restart: the daemon serves the file and removed the decoy.
            let daemon = try DaemonProcess(file: dir.bookFile, socket: dir.socket, log: dir.log)
            let client = try RequestClient(socket: dir.socket)
            #expect(try client.list().byID == BookFile.books(TestFiles.readBytes(dir.bookFile) ?? []))
            #expect(try client.get("decoy") == nil)
            daemon.stop()
            // Every decoy was removed from its temporary name and, its content differing from the book
            // file, moved to `books.txt.recovered-…` (never deleted): one recovered copy per round.
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            let temps = names.filter { $0.hasPrefix(".books.txt.booksd-") }
            #expect(temps.isEmpty, "temporary files left after the final restart: \(temps)")
            let decoy = BookFile.render(["decoy|Decoy|Decoy"])
            let recoveredDecoys = names.filter {
                $0.hasPrefix("books.txt.recovered-") && TestFiles.readBytes(dir.path + "/" + $0) == decoy
            }
            #expect(recoveredDecoys.count == kills, "\(recoveredDecoys.count) decoys recovered of \(kills) planted")
            print(
                """
                [reliability] crash: \(kills) SIGKILLs, \(totalAcks) acknowledged writes, \(leftoversSeen) real \
                temporary files left by kills (all ignored and removed)
                """
            )
        }

        /// One writer: alternates 3-book insert batches and 2-book pair updates until the daemon dies.
        static func writerLoop(thread t: Int, round: Int, socket: String, ledger: WriteLedger) {
            guard let client = try? RequestClient(socket: socket) else { return }
            var n = 0
            while !ledger.with({ $0.stop }) {
                n += 1
                if n % 2 == 0 {
                    let value = ledger.with { l -> Int in
                        let v = l.pairAttempted[t]! + 1
                        l.pairAttempted[t] = v
                        return v
                    }
                    guard
                        let reply = try? client.update([
                            BookPatch(id: "p\(t)a", name: "v\(value)"),
                            BookPatch(id: "p\(t)b", name: "v\(value)"),
                        ])
                    else { return }
                    if reply.ok {
                        ledger.with {
                            $0.pairAcked[t] = value
                            $0.acks += 1
                        }
                    }
                } else {
                    let key = "r\(round)t\(t)n\(n)"
                    let books = (0..<3).map { Book(id: "\(key)-\($0)", name: "Batch \(key)", author: "Writer \(t)") }
                    ledger.with { $0.attemptedBatches[key] = books }
                    guard let reply = try? client.insert(books) else { return }
                    if reply.ok {
                        ledger.with {
                            $0.ackedBatches.insert(key)
                            $0.acks += 1
                        }
                    }
                }
            }
        }

        static func checkInvariants(dir: TemporaryDirectory, ledger: WriteLedger, round: Int) throws {
            let bytes = try #require(TestFiles.readBytes(dir.bookFile), "round \(round): the book file is gone")
            let document = BookFile.parse(bytes)
            let books = BookFile.books(bytes)
            let lines = Set(BookFile.lines(bytes))
            for kept in BookFile.preservedLines {
                #expect(lines.contains(kept), "round \(round): lost the line \(kept.debugDescription)")
            }
            #expect(
                document.badLineCount == 2, "round \(round): \(document.badLineCount) bad lines (expected the 2 seeded)"
            )
            #expect(document.bookCount == books.count, "round \(round): duplicate ids in the file")
            for i in 0..<20 { #expect(books["s\(i)"] == Book(id: "s\(i)", name: "Seed \(i)", author: "Author \(i)")) }
            ledger.with { l in
                for (key, batch) in l.attemptedBatches {
                    let present = batch.filter { books[$0.id] == $0 }.count
                    #expect(
                        present == 0 || present == batch.count,
                        "round \(round): batch \(key) half applied (\(present)/\(batch.count))")
                    if l.ackedBatches.contains(key) {
                        #expect(present == batch.count, "round \(round): acknowledged batch \(key) lost")
                    }
                }
                for t in 0..<writers {
                    let a = books["p\(t)a"]?.name
                    let b = books["p\(t)b"]?.name
                    #expect(a == b, "round \(round): pair \(t) half updated: \(a ?? "-") vs \(b ?? "-")")
                    let value = Int(a?.dropFirst() ?? "") ?? -1
                    #expect(
                        value >= l.pairAcked[t]! && value <= l.pairAttempted[t]!,
                        """
                        round \(round): pair \(t) at v\(value), acked v\(l.pairAcked[t]!), attempted \
                        v\(l.pairAttempted[t]!)
                        """
                    )
                    // The next round's updates start from what the file holds.
                    l.pairAttempted[t] = max(value, l.pairAttempted[t]!)
                    l.pairAcked[t] = value
                }
            }
        }
    }
}
