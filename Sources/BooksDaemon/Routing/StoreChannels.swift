import BooksPlatform

/// A store's complete channel chain, composed once, before its engine is made, and given to the
/// engine's initializer (`StoreRegistry.Environment.channels`): the same composition for a store
/// configured at start and for one added at run time (the watched folder, the replica folder).
///
/// Outermost first: the NATS stage (`NATSChannelRouter`, when NATS is on and the store is
/// published) or the replica stage (`ReplicaChannelRouter`, for a replica), the HTTP stage
/// (`HTTPChannelRouter`, when HTTP is on), then the store's `StoreChannel`. No stage is ever
/// replaced: what a stage needs that exists only later gets to it through one narrow, set-once
/// port — the engine through `engine` (bound by the registry right after making it, before it
/// loads), the NATS publisher and responder through `NATSChannelRouter.link(publisher:responder:)`,
/// a replica's link through `ReplicaChannelRouter.link(_:)`; until then a stage passes
/// everything on to the next one.
public struct StoreChannels: Sendable {
    /// The chain's outermost stage: what the engine sends to.
    public let channel: any ClientChannel
    /// The engine, for the stages that ask it something (a `subscribe-failed` event's position).
    public let engine: EnginePort

    /// A chain whose stages reach the engine through `engine`.
    public init(channel: any ClientChannel, engine: EnginePort) {
        self.channel = channel
        self.engine = engine
    }
}

/// The engine of a store, for the stages of its channel chain, which are made before it: bound
/// once (`bind`), by the registry as it makes the engine. Holds the engine weakly (the engine
/// holds its chain), so a removed store's engine is freed.
public final class EnginePort: Sendable {
    private let box = Locked(WeakEngine())

    private struct WeakEngine: Sendable {
        weak var engine: BookEngine?
    }

    /// No engine yet.
    public init() {}

    /// Binds `engine` (the first binding stays).
    public func bind(_ engine: BookEngine) {
        box.withLock { if $0.engine == nil { $0.engine = engine } }
    }

    /// The engine's feed position (`BookEngine.feedPosition`); `("", 0)` without an engine.
    public var feedPosition: (epoch: String, seq: UInt64) {
        box.withLock { $0.engine }?.feedPosition ?? ("", 0)
    }
}
