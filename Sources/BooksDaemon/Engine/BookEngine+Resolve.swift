import BooksCore
import BooksProtocol

/// `resolve`: settling a kept conflict of a merged save is a write (taking `theirs` writes the
/// other side's value), so it is authorized like one, then handed to the state machine.
extension BookEngine {
    /// Checks `request` (`conflict` and `take` present) and the peer's right to write, then
    /// queues the settling; a missing field or a refusal is answered at once.
    func accept(resolve request: Request, from connection: ReplyTarget, peer: PeerCredentials) {
        guard let id = request.conflict, let side = request.take else {
            let error = ProtocolError(
                .invalidArgument, "resolve needs \"conflict\" (a conflict number) and \"take\" (\"mine\" or \"theirs\")"
            )
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        guard mayWrite(request, from: connection, peer: peer) else { return }
        let overNATS = connection.transport == .nats
        let source: ChangeSource = overNATS ? .nats : .client
        let actor: ChangeActor? = overNATS ? peer.natsActor : peer.actor
        queue.async {
            self.run(
                .resolveConflict(
                    id, take: side, requestID: request.id, connection: connection, source: source, actor: actor))
        }
    }
}

/// `undo`: a write (of the inverse of earlier change sets), authorized like one.
extension BookEngine {
    /// Checks `request` (`seqs` present) and the peer's right to write, then queues the undo.
    func accept(undo request: Request, from connection: ReplyTarget, peer: PeerCredentials) {
        guard let seqs = request.seqs, !seqs.isEmpty, seqs.count <= ReconcilerStateMachine.maxHistoryPerReply else {
            let error = ProtocolError(
                .invalidArgument,
                "undo needs \"seqs\": 1 to \(ReconcilerStateMachine.maxHistoryPerReply) seqs of change sets to undo")
            channel?.send(.failure(request.id, error), to: connection)
            return
        }
        guard mayWrite(request, from: connection, peer: peer) else { return }
        let actor: ChangeActor? = (connection.transport == .nats) ? peer.natsActor : peer.actor
        let force = request.force ?? false
        queue.async {
            self.run(.undo(seqs, force: force, requestID: request.id, connection: connection, actor: actor))
        }
    }
}
