extension Optional {
    /// Whether this is `nil`, checked in place. `x == nil` on an optional of an `Equatable` type
    /// calls its `==` (the state machine's `held: Request?` was copied and compared field by
    /// field), and for other types copies the payload (`stream: BookStreamEncoder?`); both ran
    /// for every subscriber of every broadcast.
    @inline(__always) package var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
