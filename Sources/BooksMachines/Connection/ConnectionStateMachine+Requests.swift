import BooksCore
import BooksProtocol

/// Requests: the backlog of complete lines, decoding, and which requests are delivered when.
extension ConnectionStateMachine {
    /// Whether `op` is delivered alone: its reply can be large (a list of books, a snapshot, the
    /// status), so a connection gets at most one such request handed over at a time, and only
    /// while its output is at most half of `queueLimit`.
    public static func isExclusive(_ op: Request.Operation) -> Bool {
        switch op {
        case .list, .query, .get, .status, .subscribe, .stores, .conflicts, .log, .show, .blame: return true
        case .hello, .ping, .insert, .update, .delete, .save, .unsubscribe, .resolve, .undo: return false
        }
    }

    /// An exclusive request may be delivered: nothing is unanswered and the output is at most
    /// half of the limit.
    var mayDeliverExclusive: Bool { pendingReplies == 0 && queuedBytes <= queueLimit / 2 }

    mutating func processBacklog(into actions: inout [Action]) {
        lines: while state.isLive, !outputOverLimit, output.isDirect {
            switch delivery {
            case .exclusive:
                break lines
            case .holding(let request):
                guard mayDeliverExclusive else { break lines }
                delivery = .pipelining
                deliver(request, into: &actions)
            case .pipelining:
                guard pendingReplies < maxPendingRequests, let frame = backlog.next() else { break lines }
                process(frame, into: &actions)
            }
        }
        backlog.compact()
    }

    private mutating func process(_ frame: LineFramer.Frame, into actions: inout [Action]) {
        switch frame {
        case .tooLong:
            violation(
                ProtocolError(.tooLarge, "request line longer than \(framer.maxLineLength) bytes"),
                id: nil, into: &actions)
        case .line(let line):
            handle(line, into: &actions)
        }
    }

    mutating func handle(_ line: [UInt8], into actions: inout [Action]) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are ignored
        let awaitingHello = state == .awaitingHello
        let request: Request
        do {
            request = try decoder.decode(line)
        } catch {
            if awaitingHello && !error.requiresDisconnect {
                violation(
                    ProtocolError(.helloRequired, "the first request must be hello"), id: error.id, into: &actions)
            } else if error.requiresDisconnect {
                violation(error.error, id: error.id, into: &actions)
            } else {
                actions.append(emit(error.reply))
            }
            return
        }
        if request.op == .hello {
            guard let negotiated = request.version.flatMap(ProtocolVersion.negotiate) else {
                let stated = request.version.map(String.init) ?? "none"
                let range = ProtocolVersion.supported
                violation(
                    ProtocolError(
                        .unsupportedVersion,
                        "protocol version \(stated) is not supported; this server speaks \(range.lowerBound) to \(range.upperBound)"
                    ),
                    id: request.id, into: &actions)
                return
            }
            if awaitingHello {
                state = .active
                version = negotiated
            }
            actions.append(.answerHello(id: request.id))
            return
        }
        guard !awaitingHello else {
            violation(ProtocolError(.helloRequired, "the first request must be hello"), id: request.id, into: &actions)
            return
        }
        if request.op == .subscribe, request.conflicts == true { wantsConflicts = true }
        if Self.isExclusive(request.op) && !mayDeliverExclusive {
            delivery = .holding(request)  // delivered by `processBacklog` once the connection is quiet
        } else {
            deliver(request, into: &actions)
        }
    }

    private mutating func deliver(_ request: Request, into actions: inout [Action]) {
        pendingReplies += 1
        if Self.isExclusive(request.op) { delivery = .exclusive }
        actions.append(.deliver(request))
    }

    mutating func violation(_ error: ProtocolError, id: String?, into actions: inout [Action]) {
        actions.append(emit(.failure(id, error)))
        actions += close(.protocolViolation(error.code))
    }

    mutating func emit(_ reply: Reply) -> Action {
        let bytes = MessageEncoder.encode(reply)
        queuedBytes += bytes.count
        exemptBytes += bytes.count
        return .send(bytes)
    }
}
