import BooksCore
import BooksNATS
import BooksProtocol
import Dispatch
import FoundationEssentials
import Glibc

/// Client writes on a replica's socket go to the owner, which orders every write of the store.
extension ReplicaLink {
    /// Sends client writes of the replica's socket to the owner from now on.
    func forwardClientWrites() {
        let queue = DispatchQueue(label: "booksd.replica.forward." + store)
        engine.writeForwarder.withLock {
            $0 = { [self] request, client in
                queue.async { self.engine.channel?.send(self.forwardNow(request), to: client) }
            }
        }
    }

    /// The owner's answer to `request`, once the local file holds the change set it made (at
    /// most 5 s later), so the client reads its own write on this socket; `store-unavailable`
    /// when the owner cannot be reached (nothing was written then, or — after a lost answer —
    /// the write landed and comes back through the stream; inserts carry their ids, so a retry
    /// cannot insert twice).
    func forwardNow(_ request: Request) -> Reply {
        guard connection.isConnected else {
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner is unreachable (NATS is down): nothing was written; "
                        + "retry later, or edit the file (edits are queued)"))
        }
        let message: NATSMessage
        do {
            let line = try RequestEncoder.encode(request)
            message = try connection.request(line, to: apiSubject, timeoutMilliseconds: 5000)
        } catch let error as NATSError where error.isNoResponders {
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner does not answer on \(apiSubject): nothing was "
                        + "written; retry later, or edit the file (edits are queued)"))
        } catch {
            return .failure(
                request.id,
                ProtocolError(
                    .storeUnavailable,
                    "store '\(store)' is a replica and its owner did not answer (\(error)); if the write landed it "
                        + "arrives through the stream, a retry of it is refused or finds it"))
        }
        guard case .reply(var reply)? = try? MessageDecoder().decode(message.data) else {
            return .failure(request.id, ProtocolError(.internalError, "an unreadable answer from the owner"))
        }
        reply.id = request.id
        if reply.ok, let seq = reply.result?.seq { waitUntilApplied(seq: seq, epoch: reply.result?.epoch) }
        return reply
    }

    /// Waits (at most 5 s) until the owner's change set `seq` is in the local file.
    private func waitUntilApplied(seq: UInt64, epoch: String?) {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let applied = machine.withLock { machine -> Bool in
                guard let machine else { return true }
                if let epoch, machine.record.epoch != epoch { return false }
                return machine.record.seq >= seq && machine.localWrite == nil
            }
            if applied { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&pause, nil)
        }
    }
}
