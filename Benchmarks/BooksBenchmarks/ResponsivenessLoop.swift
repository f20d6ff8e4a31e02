import BooksTestSupport
import Glibc

/// What one responsiveness run measured against one booksd.
struct ResponsivenessMeasurement: Sendable {
    /// One hand edit: the appended row's id, when its `close()` returned, and how long until the
    /// subscriber read a `change` event naming it (nil: not within the limit).
    struct HandEdit: Sendable, Equatable {
        var id: String
        var at: UInt64
        var arrivalMS: Double?
    }

    /// connect → `ping` reply of each probe (a new connection: `hello`, then `ping`), ms.
    var probes: Distribution
    /// Each measured probe: its start (ms after the run started) and its round trip (ms).
    var probeTimeline: [(startMS: Double, roundTripMS: Double)]
    /// When each acknowledged `update` reply was read, ms after the run started.
    var updateReplyTimes: [Double]
    /// Probes that failed: refused connection, error reply, closed, or unanswered at the end.
    var probeFailures: Int
    /// Request written → `ok` reply read, per acknowledged `update`, ms.
    var updates: Distribution
    /// `update` replies that were errors.
    var updateFailures: Int
    /// Distinct `seq`s in the `update` replies: the commits (each a full rewrite + fsync).
    var commits: Int
    /// Start → last acknowledged update, s.
    var seconds: Double
    /// `change` events the subscriber read.
    var changeEvents: Int
    /// Whether booksd closed the subscriber's connection.
    var subscriberClosed: Bool
    /// The hand edits, in the order they were made.
    var handEdits: [HandEdit]

    /// Acknowledged updates per second.
    var updatesPerSecond: Double { Double(updates.count) / seconds }
    /// Commits (full rewrites) per second.
    var rewritesPerSecond: Double { Double(commits) / seconds }
    /// Whether every hand edit reached the subscriber (false when none was made).
    var allHandEditsReached: Bool { !handEdits.isEmpty && handEdits.allSatisfy { $0.arrivalMS != nil } }
}

/// The responsiveness scenario against one running booksd, driven from one thread by one `poll`
/// loop (every socket non-blocking): W writers each with one `update` in flight, one subscriber
/// resumed at the current position, a new hello + ping probe every 10–20 ms (on a fixed schedule,
/// so a probe that waits does not delay the next one: stalls are sampled, not skipped), and hand
/// edits appended to the file every few seconds.
final class ResponsivenessLoop {
    /// One probe connection: `hello` sent at start, `ping` after the hello reply.
    private final class Probe {
        let socket: LineClient
        let start: UInt64
        var pinged = false
        init(socket: LineClient, start: UInt64) {
            self.socket = socket
            self.start = start
        }
    }

    private static let helloLine = "{\"id\":\"h\",\"op\":\"hello\",\"version\":1,\"client\":\"bench-probe\"}"
    private static let pingLine = "{\"id\":\"p\",\"op\":\"ping\"}"

    private let socketPath: String
    private let filePath: String
    private let seconds: Double
    private let bookIDs: [String]
    private let writers: [LineClient]
    private let subscriber: LineClient
    private var random = SplitMix64(seed: 0x5072_6F62_65)  // "Probe"
    private var sequence: [Int]
    private var sentAt: [UInt64]
    private var writerDone: [Bool]
    private var probes: [Probe] = []
    private var start: UInt64 = 0
    private var probeSamples: [(startMS: Double, roundTripMS: Double)] = [], probeFailures = 0
    private var updateReplyTimes: [Double] = []
    private var updateSamples: [Double] = [], updateFailures = 0
    private var commitSeqs: Set<UInt64> = []
    private var lastAcknowledged: UInt64 = 0
    private var changeEvents = 0
    private var edits: [ResponsivenessMeasurement.HandEdit] = []

    /// Connects the writers (each will update `bookIDs[k]`) and the subscriber (`hello`, then
    /// `subscribe` resuming at the hello's epoch/seq: no snapshot); nil when the daemon refuses.
    init?(socket: String, file: String, bookIDs: [String], seconds: Double) {
        socketPath = socket
        filePath = file
        self.seconds = seconds
        self.bookIDs = bookIDs
        var writers: [LineClient] = []
        for k in bookIDs.indices {
            guard let s = LineClient.connectIfListening(socket), s.helloPoint(client: "bench-writer-\(k)") != nil else {
                Console.error("writer \(k) could not connect to \(socket)")
                return nil
            }
            writers.append(s)
        }
        self.writers = writers
        guard let s = LineClient.connectIfListening(socket), let position = s.helloPoint(client: "bench-subscriber")
        else {
            Console.error("the subscriber could not connect to \(socket)")
            return nil
        }
        _ = s.send(LineClient.subscribeLine(id: "s", epoch: position.epoch, seq: position.seq))
        guard let reply = s.readLine(timeout: 10), reply.contains("\"ok\":true") else {
            Console.error("subscribe failed")
            return nil
        }
        subscriber = s
        sequence = Array(repeating: 0, count: bookIDs.count)
        sentAt = Array(repeating: 0, count: bookIDs.count)
        writerDone = Array(repeating: false, count: bookIDs.count)
    }

    /// Whether `line` is a `change` event that names the book `id`.
    static func announces(_ line: String, id: String) -> Bool {
        line.hasPrefix("{\"event\":\"change\"") && line.contains("\"id\":\(JSONLine.quoted(id))")
    }

    /// Runs for `seconds`, then waits (up to the hand-edit limit) for the last replies, probes and
    /// hand edits.
    func run() -> ResponsivenessMeasurement {
        start = Stopwatch.now()
        let stopSending = start + UInt64(seconds * 1e9)
        let hardStop = stopSending + UInt64(ResponsivenessOptions.handEditLimitSeconds * 1e9)
        let editTimes = ResponsivenessOptions.handEditTimes(seconds: seconds).map { start + UInt64($0 * 1e9) }
        var nextEdit = 0
        var nextProbe = start
        for k in writers.indices { sendUpdate(k) }
        while true {
            let now = Stopwatch.now()
            if now < stopSending {
                if now >= nextProbe {
                    startProbe()
                    nextProbe = now + 10_000_000 + random.next() % 10_000_001
                }
                if nextEdit < editTimes.count, now >= editTimes[nextEdit] {
                    nextEdit += 1
                    handEdit(nextEdit)
                }
            }
            let waiting =
                writerDone.contains(false) || !probes.isEmpty
                || (!subscriber.isAtEnd && edits.contains { $0.arrivalMS == nil })
            if (now >= stopSending && !waiting) || now >= hardStop { break }
            var wake = now + 50_000_000
            if now < stopSending {
                wake = min(wake, nextProbe, stopSending)
                if nextEdit < editTimes.count { wake = min(wake, editTimes[nextEdit]) }
            }
            let sockets = writers + [subscriber] + probes.map(\.socket)
            // A socket already closed is left out (fd -1): a hung-up descriptor would wake poll at once.
            var fds = sockets.map {
                pollfd(fd: $0.isAtEnd ? -1 : $0.fd, events: Int16(POLLIN | ($0.wantsWrite ? POLLOUT : 0)), revents: 0)
            }
            _ = poll(&fds, nfds_t(fds.count), Int32((wake > now ? wake - now : 0) / 1_000_000 + 1))
            for k in writers.indices where fds[k].revents != 0 || (writers[k].isAtEnd && !writerDone[k]) {
                readWriter(k, stopSending: stopSending)
            }
            if fds[writers.count].revents != 0 { readSubscriber() }
            let ready = Set(fds[(writers.count + 1)...].filter { $0.revents != 0 && $0.fd >= 0 }.map(\.fd))
            probes.removeAll { ($0.socket.isAtEnd || ready.contains($0.socket.fd)) && advance($0) }
        }
        let unanswered = probes.count
        for probe in probes { probe.socket.close() }
        probes.removeAll()
        for s in writers { s.close() }
        subscriber.close()
        return ResponsivenessMeasurement(
            probes: Distribution(probeSamples.map(\.roundTripMS)), probeTimeline: probeSamples,
            updateReplyTimes: updateReplyTimes, probeFailures: probeFailures + unanswered,
            updates: Distribution(updateSamples), updateFailures: updateFailures, commits: commitSeqs.count,
            seconds: Double((lastAcknowledged > start ? lastAcknowledged : Stopwatch.now()) - start) / 1e9,
            changeEvents: changeEvents, subscriberClosed: subscriber.isAtEnd, handEdits: edits)
    }

    /// Writer k's next `update`: its book's name alternates, so every update changes the file.
    private func sendUpdate(_ k: Int) {
        sequence[k] += 1
        sentAt[k] = Stopwatch.now()
        let name = "Responsiveness \(k) \(sequence[k] % 2 == 0 ? "A" : "B")"
        writers[k].enqueue(
            "{\"id\":\"u\(k)-\(sequence[k])\",\"op\":\"update\",\"patches\":[{\"id\":\(JSONLine.quoted(bookIDs[k])),"
                + "\"name\":\(JSONLine.quoted(name))}]}")
        writers[k].flush()
    }

    private func readWriter(_ k: Int, stopSending: UInt64) {
        let socket = writers[k]
        socket.flush()
        for line in socket.readAvailableLines() where line.hasPrefix("{\"id\":\"u\(k)-\(sequence[k])\"") {
            let now = Stopwatch.now()
            if line.contains("\"ok\":true") {
                updateSamples.append(Double(now - sentAt[k]) / 1e6)
                lastAcknowledged = now
                updateReplyTimes.append(Double(now - start) / 1e6)
                if let seq = JSONLine.integer("seq", in: line) { commitSeqs.insert(seq) }
            } else {
                updateFailures += 1
                if updateFailures <= 3 { Console.error("update failed: \(line)") }
            }
            if now < stopSending { sendUpdate(k) } else { writerDone[k] = true }
        }
        if socket.isAtEnd && !writerDone[k] {
            Console.error("writer \(k): connection closed by booksd")
            writerDone[k] = true
        }
    }

    private func readSubscriber() {
        for line in subscriber.readAvailableLines() {
            if line.hasPrefix("{\"event\":\"resync-required\"") { Console.error("subscriber: \(line)") }
            guard line.hasPrefix("{\"event\":\"change\"") else { continue }
            changeEvents += 1
            let now = Stopwatch.now()
            for e in edits.indices where edits[e].arrivalMS == nil && Self.announces(line, id: edits[e].id) {
                edits[e].arrivalMS = Double(now - edits[e].at) / 1e6
            }
        }
        if subscriber.isAtEnd {
            Console.error("subscriber: connection closed by booksd; hand edits can no longer arrive")
        }
    }

    /// A new connection: `hello` now, `ping` after its reply.
    private func startProbe() {
        let start = Stopwatch.now()
        guard let socket = LineClient.connectIfListening(socketPath) else {
            probeFailures += 1
            return
        }
        socket.enqueue(Self.helloLine)
        socket.flush()
        probes.append(Probe(socket: socket, start: start))
    }

    /// Handles a probe's replies; true when it is finished (measured or failed).
    private func advance(_ probe: Probe) -> Bool {
        probe.socket.flush()
        for line in probe.socket.readAvailableLines() {
            let ok = line.contains("\"ok\":true")
            if !probe.pinged, line.hasPrefix("{\"id\":\"h\"") {
                guard ok else {
                    probeFailures += 1
                    return true
                }
                probe.pinged = true
                probe.socket.enqueue(Self.pingLine)
                probe.socket.flush()
            } else if probe.pinged, line.hasPrefix("{\"id\":\"p\"") {
                if ok {
                    probeSamples.append(
                        (Double(probe.start - start) / 1e6, Double(Stopwatch.now() - probe.start) / 1e6))
                } else {
                    probeFailures += 1
                }
                probe.socket.close()
                return true
            }
        }
        if probe.socket.isAtEnd {
            probeFailures += 1
            return true
        }
        return false
    }

    /// Appends `hand-K|Hand edit K|Bench Hand` the way `echo >>` does: open(O_APPEND), write, close.
    private func handEdit(_ k: Int) {
        let id = "hand-\(k)"
        let row = Array("\(id)|Hand edit \(k)|Bench Hand\n".utf8)
        let fd = open(filePath, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else {
            Console.error("hand edit \(id): open failed")
            return
        }
        let written = row.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written != row.count { Console.error("hand edit \(id): short write") }
        edits.append(.init(id: id, at: Stopwatch.now(), arrivalMS: nil))
    }
}
