import BooksCore
import BooksProtocol

/// Subscriptions: which stores a connection follows, from which seq, through which filter.
extension ConnectionStateMachine {
    /// The subscriptions in `subscribed`; empty in any other state.
    public var subscriptions: StoreSubscriptions {
        if case .subscribed(let subscriptions) = state { return subscriptions }
        return StoreSubscriptions()
    }

    /// True when events carry their store: the connection speaks version 2.
    public var namesStores: Bool { version >= ProtocolVersion.stores }

    /// Whether the broadcast of `store` with `seq` is for this connection: in `subscribed`, with
    /// that store followed from below `seq`, returns its filter and advances its `afterSeq` to
    /// `seq` (so each change is offered once); otherwise returns nil and changes nothing.
    public mutating func acceptBroadcast(store: String = StoreSubscriptions.unnamed, seq: UInt64) -> BookFilter? {
        guard case .subscribed(var subscriptions) = state, let filter = subscriptions.accept(store, seq: seq) else {
            return nil
        }
        state = .subscribed(subscriptions)
        return filter
    }

    /// Whether a heartbeat of `store` at `seq` is for this connection: a subscriber of that store
    /// whose initial events do not go beyond `seq`.
    public func acceptsHeartbeat(store: String = StoreSubscriptions.unnamed, seq: UInt64) -> Bool {
        subscriptions.acceptsHeartbeat(store, seq: seq)
    }

    /// The delegate started (or replaced) the subscription of `store`: `active`/`subscribed` →
    /// `subscribed`, other stores' subscriptions kept. Returns false (and changes nothing) in any
    /// other state.
    public mutating func subscriptionStarted(
        store: String = StoreSubscriptions.unnamed, filter: BookFilter, afterSeq: UInt64
    ) -> Bool {
        switch state {
        case .active, .subscribed:
            var subscriptions = self.subscriptions
            subscriptions.start(store, filter: filter, afterSeq: afterSeq)
            state = .subscribed(subscriptions)
            return true
        case .awaitingHello, .draining, .closing:
            return false
        }
    }

    /// Ends the subscription of `store`, or of every store when nil; `subscribed` → `active` once
    /// no store is followed. Returns whether a subscription ended.
    public mutating func subscriptionStopped(store: String? = nil) -> Bool {
        guard case .subscribed(var subscriptions) = state else { return false }
        guard let store else {
            state = .active
            return true
        }
        guard subscriptions.stop(store) else { return false }
        state = subscriptions.isEmpty ? .active : .subscribed(subscriptions)
        return true
    }
}
