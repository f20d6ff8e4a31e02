// Guarantee 2 (docs/RELIABILITY.md): no lost update. Seeded, reproducible interleavings of client
// writes and hand edits (in place and rename-over, same and different books, sequential and
// racing); after every acknowledged client write the file equals a model, and a client write
// with a stale expectedVersion is refused with `conflict` instead of overwriting the hand edit.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Foundation
import Glibc
import Testing

extension ReliabilitySuite {
    @Suite(.serialized)
    struct LostUpdateTests {
        struct Counters: CustomStringConvertible {
            var clientWrites = 0, handEdits = 0, conflicts = 0, races = 0, retries = 0, mergedBack = 0
            var description: String {
                """
                \(clientWrites) client writes, \(handEdits) hand edits, \(conflicts) stale-version conflicts, \
                \(races) racing pairs, \(retries) store-unavailable retries, \(mergedBack) clobbered client \
                writes merged back from a stale rename-over
                """
            }
        }

        @Test func scriptedInterleavingsMatchTheModel() throws {
            let operations = Rel.knob("BOOKS_FAULT_OPS", 1000)
            let seed = UInt64(Rel.knob("BOOKS_FAULT_SEED", 7))
            var rng = SplitMix64(seed: seed)
            let dir = TemporaryDirectory.scratch("lost")
            var model: [String: Book] = [:]
            var lines = BookFile.preservedLines
            for i in 0..<40 {
                let b = Book(id: "b\(i)", name: "Name \(i)", author: "Author \(i)")
                model[b.id] = b
                lines.append("\(b.id)|\(b.name)|\(b.author)")
            }
            Rel.writeRenameOver(dir.bookFile, BookFile.render(lines))
            let daemon = try DaemonProcess(file: dir.bookFile, socket: dir.socket, log: dir.log)
            let client = try RequestClient(socket: dir.socket)
            var counters = Counters()
            var nextID = 1000
            // BOOKS_FAULT_TRACE=1: each operation and hand edit on stderr with the wall-clock time,
            // to line up with the daemon's debug log (kept with BOOKS_FAULT_KEEP=1).
            let tracing = Rel.knob("BOOKS_FAULT_TRACE", 0) != 0
            func trace(_ text: @autoclosure () -> String) {
                guard tracing else { return }
                var ts = timespec()
                clock_gettime(CLOCK_REALTIME, &ts)
                let line = Array(
                    "[trace \(ts.tv_sec % 1000).\(String(format: "%06d", ts.tv_nsec / 1000))] \(text())\n".utf8)
                _ = line.withUnsafeBytes { write(2, $0.baseAddress!, $0.count) }
            }

            /// Rewrites the file by hand: `edit` maps the current book rows.
            @discardableResult
            func handEdit(_ edit: (inout [String]) -> Void) -> [String] {
                var current = BookFile.lines(TestFiles.readBytes(dir.bookFile) ?? [])
                if current.last == "" { current.removeLast() }
                edit(&current)
                if Bool.random(using: &rng) {
                    trace("hand edit in place, \(BookFile.render(current).count) bytes")
                    Rel.writeInPlace(dir.bookFile, BookFile.render(current))
                } else {
                    trace("hand edit by rename, \(BookFile.render(current).count) bytes")
                    Rel.writeRenameOver(dir.bookFile, BookFile.render(current))
                }
                trace("hand edit written")
                counters.handEdits += 1
                return BookFile.lines(TestFiles.readBytes(dir.bookFile) ?? [])
            }
            /// Sets a name by hand; returns the name the editor saw before (what it read).
            @discardableResult
            func handSet(_ id: String, name: String) -> String? {
                var seen: String?
                handEdit { rows in
                    if let k = rows.firstIndex(where: { $0.hasPrefix(id + "|") }) {
                        seen = rows[k]
                        rows[k] = "\(id)|\(name)|\(model[id]!.author)"
                    }
                }
                model[id]!.name = name
                return seen
            }
            /// Sends a write and retries while the daemon reports the file as being rewritten.
            func clientWrite(_ make: () -> Request, sendOnly: Bool = false) throws -> Reply {
                for _ in 0..<200 {
                    let reply = try client.request(make())
                    if !reply.ok, reply.error?.code == .storeUnavailable {
                        counters.retries += 1
                        MonotonicClock.sleep(seconds: 0.01)
                        continue
                    }
                    return reply
                }
                throw TestSupportError("write kept failing with store-unavailable")
            }
            func checkFile(_ op: Int, _ what: String) {
                let onDisk = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])
                if onDisk != model {
                    let missing = model.filter { onDisk[$0.key] != $0.value }.map(\.key).sorted()
                    let extra = onDisk.filter { model[$0.key] == nil }.map(\.key).sorted()
                    let detail = missing.prefix(3).map {
                        "\($0): file \(onDisk[$0]?.name ?? "-") model \(model[$0]?.name ?? "-")"
                    }
                    Issue.record(
                        """
                        op \(op) (\(what)), seed \(seed): file differs from the model; wrong/missing \(missing) \
                        extra \(extra) \(detail)
                        """
                    )
                    model = onDisk  // report each divergence once
                }
            }
            func pick() -> String { model.keys.sorted().randomElement(using: &rng)! }

            for op in 0..<operations {
                let roll = Int.random(in: 0..<100, using: &rng)
                trace("op \(op) roll \(roll)")
                switch roll {
                case 0..<20:  // client update, no version
                    let id = pick()
                    let name = "C\(op)"
                    let reply = try clientWrite {
                        Request(id: client.makeID(), op: .update, patches: [BookPatch(id: id, name: name)])
                    }
                    #expect(reply.ok, "op \(op): update \(id) failed: \(String(describing: reply.error))")
                    if reply.ok { model[id]!.name = name }
                    counters.clientWrites += 1
                    checkFile(op, "client update \(id)")
                case 20..<30:  // client insert
                    nextID += 1
                    let book = Book(id: "n\(nextID)", name: "New \(op)", author: "Client")
                    let reply = try clientWrite {
                        Request(
                            id: client.makeID(), op: .insert,
                            books: [BookDraft(id: book.id, name: book.name, author: book.author)])
                    }
                    #expect(reply.ok, "op \(op): insert failed: \(String(describing: reply.error))")
                    if reply.ok { model[book.id] = book }
                    counters.clientWrites += 1
                    checkFile(op, "client insert")
                case 30..<36 where model.count > 30:  // client delete
                    let id = pick()
                    let reply = try clientWrite { Request(id: client.makeID(), op: .delete, ids: [id]) }
                    #expect(reply.ok, "op \(op): delete \(id) failed: \(String(describing: reply.error))")
                    if reply.ok { model[id] = nil }
                    counters.clientWrites += 1
                    checkFile(op, "client delete \(id)")
                case 36..<56:  // hand edit of one book's name
                    handSet(pick(), name: "H\(op)")
                case 56..<62:  // hand insert / hand delete
                    if model.count > 30, Bool.random(using: &rng) {
                        let id = pick()
                        handEdit { rows in rows.removeAll { $0.hasPrefix(id + "|") } }
                        model[id] = nil
                    } else {
                        nextID += 1
                        let book = Book(id: "h\(nextID)", name: "Hand \(op)", author: "Editor")
                        handEdit { rows in rows.append("\(book.id)|\(book.name)|\(book.author)") }
                        model[book.id] = book
                    }
                case 62..<78:  // stale expectedVersion after a hand edit: must be refused
                    let id = pick()
                    // `get` answers from the daemon's view, which may not have seen a fresh hand insert yet.
                    var found: (Book, UInt64)?
                    eventuallyBlocking(timeout: 5) {
                        found = try? client.get(id)
                        return found != nil
                    }
                    let (_, version) = try #require(found, "op \(op): get \(id)")
                    handSet(id, name: "S\(op)")
                    let reply = try clientWrite {
                        Request(
                            id: client.makeID(), op: .update,
                            patches: [BookPatch(id: id, name: "lost\(op)", expectedVersion: version)])
                    }
                    #expect(
                        !reply.ok && reply.error?.code == .conflict,
                        "op \(op): stale write on \(id) was not refused with conflict: \(reply)")
                    #expect(
                        reply.error?.current?.name == "S\(op)",
                        "op \(op): conflict does not report the hand-edited value")
                    counters.conflicts += 1
                    counters.clientWrites += 1
                    checkFile(op, "stale update \(id)")
                case 78..<92:  // race: client write on A in flight while B is edited by hand
                    let a = pick()
                    var b = pick()
                    while b == a { b = pick() }
                    let request = Request(
                        id: client.makeID(), op: .update, patches: [BookPatch(id: a, name: "RC\(op)")])
                    try client.send(request)
                    MonotonicClock.sleep(seconds: Double(Int.random(in: 0...2, using: &rng)) / 1000)
                    let oldA = model[a]!
                    // What the editor read of the file: if it did not contain the client's value yet,
                    // the editor's own save may clobber it (an editor's lost update, not the daemon's).
                    let editorSawA = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])[a]?.name
                    handSet(b, name: "RH\(op)")
                    var reply = try client.awaitReply(id: request.id)
                    if !reply.ok, reply.error?.code == .storeUnavailable {
                        counters.retries += 1
                        reply = try clientWrite {
                            Request(id: client.makeID(), op: .update, patches: [BookPatch(id: a, name: "RC\(op)")])
                        }
                    }
                    #expect(reply.ok, "op \(op): racing update failed: \(String(describing: reply.error))")
                    var nowA = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])[a]
                    if reply.ok, nowA?.name != "RC\(op)", editorSawA != "RC\(op)" {
                        // The editor's save clobbered the write. When its file was made before the
                        // write was placed, booksd merges it and writes the client's value back.
                        eventuallyBlocking(timeout: 2) {
                            nowA = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])[a]
                            return nowA?.name == "RC\(op)"
                        }
                        if nowA?.name == "RC\(op)" { counters.mergedBack += 1 }
                    }
                    if reply.ok {
                        if nowA?.name != "RC\(op)" {
                            #expect(
                                nowA == oldA && editorSawA != "RC\(op)",
                                "op \(op): client write on \(a) lost: file has \(nowA?.name ?? "-")")
                            model[a] = nowA
                        } else {
                            model[a]!.name = "RC\(op)"
                        }
                    }
                    counters.races += 1
                    counters.clientWrites += 1
                    checkFile(op, "race \(a) vs hand \(b)")
                default:  // race on the same book: either value may win, never the old one or a third
                    let id = pick()
                    let old = model[id]!.name
                    let request = Request(
                        id: client.makeID(), op: .update, patches: [BookPatch(id: id, name: "XC\(op)")])
                    try client.send(request)
                    handSet(id, name: "XH\(op)")
                    let reply = try client.awaitReply(id: request.id)
                    let now = BookFile.books(TestFiles.readBytes(dir.bookFile) ?? [])[id]?.name
                    if reply.ok {
                        #expect(
                            now == "XC\(op)" || now == "XH\(op)",
                            "op \(op): same-book race ended at \(now ?? "-") (was \(old))")
                    } else {
                        #expect(now == "XH\(op)", "op \(op): refused client write but file has \(now ?? "-")")
                    }
                    model[id]!.name = now ?? "XH\(op)"
                    counters.races += 1
                    counters.clientWrites += 1
                    checkFile(op, "same-book race \(id)")
                }
            }
            // The daemon converges on the same content, and so does a fresh reading of the file.
            let converged = eventuallyBlocking(timeout: 10) { (try? client.list().byID) == model }
            #expect(converged, "the daemon's view does not converge on the model")
            checkFile(operations, "final")
            let lineSet = Set(BookFile.lines(TestFiles.readBytes(dir.bookFile) ?? []))
            for kept in BookFile.preservedLines { #expect(lineSet.contains(kept), "lost \(kept.debugDescription)") }
            #expect(daemon.isRunning)
            daemon.stop()
            print("[reliability] lost-update: \(operations) operations (seed \(seed)): \(counters)")
            // The script exercised every kind of step (a run that skipped one would show nothing).
            #expect(
                counters.clientWrites > 0 && counters.handEdits > 0 && counters.conflicts > 0 && counters.races > 0,
                "seed \(seed): some kind of step never ran: \(counters)")
        }
    }
}
