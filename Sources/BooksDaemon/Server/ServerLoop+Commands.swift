import BooksCore
import BooksProtocol
import Glibc

/// Commands from other threads: replies, subscriptions, broadcasts (with the direct-send fast
/// path for idle subscribers), heartbeats, shutdown.
extension ServerLoop {
    func handleCommands() {
        for command in channel.takeAll() { apply(command) }
    }

    private func apply(_ command: ServerCommand) {
        switch command {
        case .send(let id, let bytes, let failure):
            guard let connection = connections[id.raw] else { return }
            perform(connection.machine.enqueue(bytes, kind: failure ? .failure : .reply), on: connection)

        case .sendEvent(let id, let bytes, let answersPart):
            guard let connection = connections[id.raw] else { return }
            if let answersPart { connection.following.pendingParts.remove(answersPart) }
            perform(connection.machine.enqueue(bytes, kind: .unsolicited), on: connection)

        case .startSubscription(
            let id, let store, let reply, let replyKind, let filter, let initialEvents, let afterSeq):
            guard let connection = connections[id.raw] else { return }
            // A per-store part of a multi-store subscribe is answered by an unsolicited event.
            if replyKind == .unsolicited { connection.following.pendingParts.remove(store) }
            connection.following.subscribed.insert(store)
            let wasSubscribed = connection.machine.isSubscribed
            guard connection.machine.subscriptionStarted(store: store, filter: filter, afterSeq: afterSeq) else {
                return
            }
            subscribers.add(connection, store: store)
            if !wasSubscribed {
                subscriberCount += 1
                server.updateStatistics { $0.subscribers = subscriberCount }
                // The fan-out helper starts as soon as a broadcast could use it, not inside the
                // first large broadcast (whose subscribers would wait for the thread's start).
                if subscriberCount >= configuration.parallelSendThreshold { _ = parallelSender() }
            }
            guard perform(connection.machine.enqueue(reply, kind: replyKind), on: connection) else { return }
            for bytes in initialEvents {
                guard perform(connection.machine.enqueue(bytes, kind: .unsolicited), on: connection) else { return }
            }

        case .stream(let id, let books):
            guard let connection = connections[id.raw] else { return }
            perform(connection.machine.startStream(books), on: connection)

        case .stopSubscription(let id, let store, let reply):
            guard let connection = connections[id.raw] else { return }
            stopSubscription(of: connection, store: store)
            if !reply.isEmpty { perform(connection.machine.enqueue(reply, kind: .reply), on: connection) }

        case .storeAdded(let store, let notice, let follow):
            storeAdded(store, notice: notice, follow: follow)

        case .storeRemoved(let store, let reason):
            storeRemoved(store, reason: reason)

        case .broadcast(let change, let store):
            lastPositions[store] = (change.epoch, change.seq)
            broadcast(change, store: store)

        case .heartbeat(let epoch, let seq, let store):
            lastPositions[store] = (epoch, seq)
            let plain = Event(event: .heartbeat, epoch: epoch, seq: seq)
            var encoded: [Bool: [UInt8]] = [:]
            let visited = subscribers.connections(of: store)
            server.updateStatistics { $0.broadcastVisits += visited.count }
            for connection in visited where connection.machine.acceptsHeartbeat(store: store, seq: seq) {
                let tagged = connection.machine.namesStores && !store.isEmpty
                let bytes =
                    encoded[tagged]
                    ?? {
                        var event = plain
                        if tagged { event.store = store }
                        let bytes = MessageEncoder.encode(event)
                        encoded[tagged] = bytes
                        return bytes
                    }()
                enqueueEvent(bytes, on: connection, epoch: epoch, seq: seq, store: tagged ? store : nil)
            }

        case .conflict(let event, let store):
            let visited = subscribers.connections(of: store)
            server.updateStatistics { $0.broadcastVisits += visited.count }
            for connection in visited
            where connection.machine.wantsConflicts && connection.machine.subscriptions.byStore[store] != nil {
                var tagged = event
                tagged.store = connection.machine.namesStores && !store.isEmpty ? store : nil
                enqueueEvent(
                    MessageEncoder.encode(tagged), on: connection, epoch: event.epoch, seq: event.seq,
                    store: tagged.store)
            }

        case .stopAccepting:
            stopAccepting()

        case .deliverPendingInput(let barrier, let deadline):
            deliverPendingInput(barrier, deadline: deadline)

        case .shutdown(let reason, let deadline):
            beginShutdown(reason: reason, deadline: deadline)

        case .run(let body):
            body()
        }
    }

    /// Ends `connection`'s subscription of `store` (every store when nil).
    private func stopSubscription(of connection: Connection, store: String?) {
        if let store { connection.following.subscribed.remove(store) } else { connection.following.subscribed = [] }
        let wasSubscribed = connection.machine.isSubscribed
        _ = connection.machine.subscriptionStopped(store: store)
        subscribers.remove(connection, store: store)
        if wasSubscribed && !connection.machine.isSubscribed {
            subscriberCount -= 1
            server.updateStatistics { $0.subscribers = subscriberCount }
        }
    }

    /// The connections a store notice is for: version 2, following some store.
    private var noticeReceivers: [Connection] {
        connections.values.filter { $0.machine.namesStores && !$0.following.subscribed.isEmpty }
    }

    /// Store `store` was added (see `ServerCommand.storeAdded`).
    private func storeAdded(
        _ store: String, notice: [UInt8], follow: @Sendable (ConnectionID, StoreFollowing.EveryStore) -> Void
    ) {
        for connection in noticeReceivers {
            let every = connection.following.everyStore
            if every != nil { connection.following.pendingParts.insert(store) }
            guard perform(connection.machine.enqueue(notice, kind: .unsolicited), on: connection) else { continue }
            if let every { follow(connection.id, every) }
        }
    }

    /// Store `store` is gone (see `ServerCommand.storeRemoved`).
    private func storeRemoved(_ store: String, reason: String) {
        let (epoch, seq) = lastPositions.removeValue(forKey: store) ?? ("", 0)
        let notice = MessageEncoder.encode(
            Event(event: .storeRemoved, epoch: epoch, seq: seq, reason: reason, store: store))
        for connection in noticeReceivers {
            connection.following.pendingParts.remove(store)
            if connection.following.subscribed.contains(store) { stopSubscription(of: connection, store: store) }
            perform(connection.machine.enqueue(notice, kind: .unsolicited), on: connection)
        }
    }

    /// Offers `change` to the machine of every connection following `store` (which filters by
    /// subscription and seq),
    /// encoding it once per distinct filter; idle subscribers get it by direct `send`, in bursts
    /// of `DirectSendBatch.burst` during this pass, unless the `ParallelSender` shares the sends
    /// (then all after the pass). Version-2 connections get the event with its `store` (when the
    /// store is named), version-1 connections without it: the encoding is cached per (filter, tagged).
    private func broadcast(_ change: SequencedChangeSet, store: String) {
        let parallel = subscriberCount >= configuration.parallelSendThreshold && parallelSender() != nil
        // Subscribers mostly share one filter, so the last one is checked before the dictionary
        // (no hashing per subscriber).
        var encoded: [EncodingKey: [UInt8]?] = [:]
        var last: (key: EncodingKey, bytes: [UInt8]?)?
        var admitted: [(connection: Connection, bytes: [UInt8])] = []
        var evaluations = 0
        // A connection closed meanwhile stays in this (copy-on-write) view; its machine accepts
        // nothing more.
        let visited = subscribers.connections(of: store)
        for connection in visited {
            guard let filter = connection.machine.acceptBroadcast(store: store, seq: change.seq) else { continue }
            let key = EncodingKey(filter: filter, tagged: connection.machine.namesStores && !store.isEmpty)
            let bytes: [UInt8]?
            if let last, last.key == key {
                bytes = last.bytes
            } else if let cached = encoded[key] {
                bytes = cached
                last = (key, cached)
            } else {
                let event = MessageEncoder.changeEvent(change, filter: filter, store: key.tagged ? store : nil)
                bytes = event.map(MessageEncoder.encode)
                evaluations += 1
                encoded[key] = .some(bytes)
                last = (key, bytes)
            }
            guard let bytes else { continue }  // nothing of this change passes the filter
            if connection.output.isEmpty, connection.machine.admitEvent(bytes.count) {
                if parallel {
                    admitted.append((connection, bytes))
                } else {
                    directSends.append(connection, bytes)
                    if directSends.isFull { flushDirectSends() }
                }
            } else {
                enqueueEvent(
                    bytes, on: connection, epoch: change.epoch, seq: change.seq, store: key.tagged ? store : nil)
            }
        }
        flushDirectSends()
        server.updateStatistics {
            $0.filterEvaluations += evaluations
            $0.broadcastVisits += visited.count
        }
        sendDirectly(admitted)
    }

    /// Sends the collected burst back to back, then does each connection's bookkeeping.
    private func flushDirectSends() {
        guard directSends.count > 0 else { return }
        directSends.sendAll()
        for k in 0..<directSends.count {
            finishDirectSend(directSends.results[k], of: directSends.payloads[k], on: directSends.connections[k])
        }
        directSends.removeAll()
    }

    /// Writes events the machines admitted (`admitEvent`) straight to the sockets from this
    /// thread and the `ParallelSender` thread together, then does each connection's bookkeeping:
    /// what a socket did not take is queued for EPOLLOUT.
    private func sendDirectly(_ admitted: [(connection: Connection, bytes: [UInt8])]) {
        guard !admitted.isEmpty, let helper = parallelSender() else {
            for item in admitted {
                finishDirectSend(
                    ParallelSender.sendOnce(item.connection.fd, item.bytes), of: item.bytes, on: item.connection)
            }
            return
        }
        let results = helper.send(admitted.map { ($0.connection.fd, $0.bytes) })
        for (k, item) in admitted.enumerated() { finishDirectSend(results[k], of: item.bytes, on: item.connection) }
    }

    /// The bookkeeping after a direct `send` of `bytes` that returned `n` (bytes sent, or
    /// `-errno`): what the socket did not take is queued for EPOLLOUT.
    private func finishDirectSend(_ n: Int, of bytes: [UInt8], on connection: Connection) {
        if n < 0 && -n != Int(EAGAIN) && -n != Int(EINTR) {
            perform(connection.machine.socketFailed(errno: Int32(-n)), on: connection)
            return
        }
        let sent = max(n, 0)
        if sent < bytes.count {
            connection.output.append(bytes)
            if sent > 0 { connection.output.consume(sent) }
        }
        afterWriting(sent, on: connection)
    }

    /// The fan-out helper, started when the subscribers reach `parallelSendThreshold` (nil if it
    /// cannot start: this thread then sends alone, and does not try again).
    private func parallelSender() -> ParallelSender? {
        if sender == nil, !senderFailed {
            sender = try? ParallelSender()
            senderFailed = sender == nil
        }
        return sender
    }

    /// How a broadcast is encoded for a connection.
    private struct EncodingKey: Hashable {
        var filter: BookFilter
        /// The event names its store (a version-2 connection, a named store).
        var tagged: Bool
    }

    private func enqueueEvent(
        _ bytes: [UInt8], on connection: Connection, epoch: String, seq: UInt64, store: String?
    ) {
        let actions = connection.machine.enqueue(bytes, kind: .event) {
            MessageEncoder.encode(Event(event: .resyncRequired, epoch: epoch, seq: seq, reason: "lagged", store: store))
        }
        perform(actions, on: connection)
    }

    /// Stops accepting, queues the shutdown notice for subscribers and lets every machine drain
    /// (each closes once its output is written); the loop ends when all are closed or at `deadline`.
    private func beginShutdown(reason: String, deadline: ContinuousClock.Instant) {
        guard shutdownDeadline == nil else { return }
        shutdownDeadline = deadline
        closeListener()
        for connection in Array(connections.values) {
            let notice = shutdownNotice(for: connection.machine, reason: reason)
            perform(connection.machine.beginShutdown(subscriberNotice: notice), on: connection)
        }
    }
}
