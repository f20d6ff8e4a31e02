// Guarantee 7 (docs/RELIABILITY.md): under a long mix of hand edits, client writes and a hundred
// subscribers that keep connecting (resuming) and disconnecting, every subscriber ends with a view
// equal to the file, never sees a gap or a duplicate seq, and resident memory stays flat.
// CI: 60 s (BOOKS_SOAK_SECONDS); long run: BOOKS_SOAK_SECONDS=3600.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

final class SoakSubscriber: @unchecked Sendable {
    let index: Int
    var epoch: String?
    var lastSeq: UInt64 = 0
    var view: [String: Book] = [:]
    var problems: [String] = []
    var changes = 0, snapshots = 0, resumes = 0, sessions = 0
    var inSession = 0
    var resumedFrom: UInt64?
    var finalPhase = false

    init(index: Int) { self.index = index }

    /// Handles one event; returns false on a protocol-level inconsistency.
    func apply(_ event: Event) {
        switch event.event {
        case .snapshot:
            view = (event.books ?? []).byID
            lastSeq = event.seq
            epoch = event.epoch
            snapshots += 1
        case .change:
            if event.seq != lastSeq + 1 {
                problems.append(
                    """
                    subscriber \(index): seq \(event.seq) after \(lastSeq) \
                    (\(event.seq <= lastSeq ? "duplicate" : "gap")); event #\(inSession) of session \(sessions) \
                    resumed from \(resumedFrom.map(String.init) ?? "-")\(finalPhase ? " (final)" : "")
                    """
                )
            }
            for b in event.inserted ?? [] {
                if view[b.id] != nil {
                    problems.append("subscriber \(index): insert of existing \(b.id) at seq \(event.seq)")
                }
                view[b.id] = b
            }
            for u in event.updated ?? [] {
                if view[u.old.id] != u.old {
                    problems.append(
                        "subscriber \(index): update of \(u.old.id) from an unseen value at seq \(event.seq)")
                }
                view[u.new.id] = u.new
            }
            for b in event.deleted ?? [] {
                if view.removeValue(forKey: b.id) == nil {
                    problems.append("subscriber \(index): delete of unknown \(b.id) at seq \(event.seq)")
                }
            }
            lastSeq = event.seq
            changes += 1
            inSession += 1
        case .resyncRequired, .heartbeat, .shutdown, .subscribed, .subscribeFailed, .storeAdded, .storeRemoved,
            .conflict:
            break
        }
    }

    /// One session: subscribe (resuming when possible) and read events until `until` or `seq`.
    func session(socket: String, until deadline: Double, targetSeq: UInt64? = nil) {
        guard let client = try? RequestClient(socket: socket) else { return }
        sessions += 1
        let resume = epoch.map { ResumePoint(epoch: $0, seq: lastSeq) }
        if resume != nil { resumes += 1 }
        resumedFrom = resume?.seq
        inSession = 0
        guard let reply = try? client.request(Request(id: "sub", op: .subscribe, resume: resume)), reply.ok else {
            return
        }
        for e in client.events { apply(e) }
        client.events.removeAll()
        while MonotonicClock.seconds() < deadline {
            if let targetSeq, lastSeq >= targetSeq { break }
            switch client.readMessage(timeout: min(0.2, max(0.01, deadline - MonotonicClock.seconds()))) {
            case .event(let e)?: apply(e)
            default: continue
            }
        }
        client.close()
    }
}

final class SoakStats: @unchecked Sendable {
    let lock = NSLock()
    var clientWrites = 0, handEdits = 0, refused = 0
    func add(_ body: (SoakStats) -> Void) {
        lock.lock()
        body(self)
        lock.unlock()
    }
}

extension ReliabilitySuite {
    @Suite(.serialized)
    struct SoakTests {
        @Test func soakWithHundredReconnectingSubscribers() throws {
            let seconds = Double(Rel.knob("BOOKS_SOAK_SECONDS", 60))
            let subscriberCount = Rel.knob("BOOKS_SOAK_SUBSCRIBERS", 100)
            let dir = TemporaryDirectory.scratch("soak")
            Rel.writeRenameOver(
                dir.bookFile,
                BookFile.render(BookFile.preservedLines + (0..<60).map { "b\($0)|Name \($0)|Author \($0)" }))
            let daemon = try DaemonProcess(
                file: dir.bookFile, socket: dir.socket, log: dir.log,
                extra: ["--set", "heartbeat_seconds=1"], logLevel: "notice")
            let socket = dir.socket
            let stats = SoakStats()
            let group = ThreadGroup()
            let spawn = group.spawn
            let end = MonotonicClock.seconds() + seconds
            let subscribers = (0..<subscriberCount).map { SoakSubscriber(index: $0) }
            for s in subscribers {
                spawn {
                    var rng = SplitMix64(seed: UInt64(s.index + 1))
                    while MonotonicClock.seconds() < end {
                        s.session(
                            socket: socket,
                            until: min(end, MonotonicClock.seconds() + Double.random(in: 0.05...1.5, using: &rng)))
                        usleep(UInt32.random(in: 0...200_000, using: &rng))
                    }
                }
            }
            // Client writes: updates, inserts and deletes.
            spawn {
                var rng = SplitMix64(seed: 4242)
                guard let client = try? RequestClient(socket: socket) else { return }
                var inserted: [String] = []
                var n = 0
                while MonotonicClock.seconds() < end {
                    n += 1
                    let roll = Int.random(in: 0..<10, using: &rng)
                    let reply: Reply?
                    if roll < 6 {
                        reply = try? client.update([
                            BookPatch(id: "b\(Int.random(in: 0..<60, using: &rng))", author: "W\(n)")
                        ])
                    } else if roll < 8 || inserted.isEmpty {
                        let id = "c\(n)"
                        reply = try? client.insert([Book(id: id, name: "Client \(n)", author: "Soak")])
                        if reply?.ok == true { inserted.append(id) }
                    } else {
                        let id = inserted.remove(at: Int.random(in: 0..<inserted.count, using: &rng))
                        reply = try? client.delete([id])
                    }
                    stats.add {
                        $0.clientWrites += 1
                        if reply?.ok != true { $0.refused += 1 }
                    }
                    usleep(UInt32.random(in: 2_000...15_000, using: &rng))
                }
            }
            // Hand edits: a name changed in place or by rename-over.
            spawn {
                var rng = SplitMix64(seed: 777)
                var n = 0
                while MonotonicClock.seconds() < end {
                    n += 1
                    var rows = BookFile.lines(TestFiles.readBytes(dir.bookFile) ?? [])
                    if rows.last == "" { rows.removeLast() }
                    let id = "b\(Int.random(in: 0..<60, using: &rng))"
                    if let k = rows.firstIndex(where: { $0.hasPrefix(id + "|") }) {
                        var fields = rows[k].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                        fields[1] = "Hand \(n)"
                        rows[k] = fields.joined(separator: "|")
                    }
                    if Bool.random(using: &rng) {
                        Rel.writeInPlace(dir.bookFile, BookFile.render(rows))
                    } else {
                        Rel.writeRenameOver(dir.bookFile, BookFile.render(rows))
                    }
                    stats.add { $0.handEdits += 1 }
                    usleep(UInt32.random(in: 20_000...80_000, using: &rng))
                }
            }
            // Memory samples.
            var samples: [Int] = []
            while MonotonicClock.seconds() < end {
                samples.append(daemon.memory.rss)
                MonotonicClock.sleep(seconds: 1)
            }
            group.wait()

            // Converge: the file, the daemon and every subscriber agree.
            let client = try RequestClient(socket: socket)
            MonotonicClock.sleep(seconds: 0.5)
            _ = eventuallyBlocking(timeout: 10) {
                (try? client.list().byID) == BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])
            }
            let fileBooks = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])
            let status = try client.status()
            #expect(try client.list().byID == fileBooks, "the daemon's view differs from the file")
            for s in subscribers {
                s.finalPhase = true
                s.session(socket: socket, until: MonotonicClock.seconds() + 10, targetSeq: status.seq)
                #expect(s.lastSeq == status.seq, "subscriber \(s.index) stuck at seq \(s.lastSeq) of \(status.seq)")
                s.finalPhase = true
                let same = s.view == fileBooks
                _ = s.finalPhase
                let wrong = Set(s.view.keys).union(fileBooks.keys).filter { s.view[$0] != fileBooks[$0] }.sorted()
                #expect(same, "subscriber \(s.index)'s view differs from the file on \(wrong.prefix(5))")
                for p in s.problems.prefix(5) { Issue.record(Comment(rawValue: p)) }
            }
            let warm = samples.dropFirst(max(1, samples.count / 4))
            let first = warm.first ?? 0
            let last = samples.last ?? 0
            let peak = samples.max() ?? 0
            let totals = subscribers.reduce(into: (0, 0, 0, 0)) {
                $0.0 += $1.sessions
                $0.1 += $1.resumes
                $0.2 += $1.changes
                $0.3 += $1.snapshots
            }
            print(
                """
                [reliability] soak \(Int(seconds)) s: \(stats.clientWrites) client writes (\(stats.refused) \
                refused), \(stats.handEdits) hand edits, final seq \(status.seq); \(subscriberCount) subscribers: \
                \(totals.0) sessions, \(totals.1) resumes, \(totals.2) change events, \(totals.3) snapshots
                """
            )
            print(
                """
                [reliability] soak memory: VmRSS after warm-up \(first) KiB, end \(last) KiB, peak \(peak) KiB, \
                VmHWM \(daemon.memory.hwm) KiB; samples \(samples)
                """
            )
            #expect(first > 0 && last > 0, "no VmRSS read from /proc/\(daemon.pid)/status: \(samples)")
            #expect(last <= first + first / 2 + 8 * 1024, "resident memory grew from \(first) to \(last) KiB")
            #expect(daemon.isRunning)
            #expect(
                stats.refused * 10 <= max(10, stats.clientWrites), "too many refused client writes: \(stats.refused)")
            daemon.stop()
        }
    }
}
