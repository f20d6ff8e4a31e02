import Glibc

extension Daemon {
    /// For tests only (docs/RELIABILITY.md, "Power cuts"): `BOOKSD_TEST_REPLAY_BUDGET_BYTES` lowers
    /// the replay budget that makes a snapshot due, so that a small file gets snapshots between
    /// edits. Not a setting: nothing else reads it, and it is ignored unless a positive integer.
    static var testReplayBudget: Int? {
        guard let value = getenv("BOOKSD_TEST_REPLAY_BUDGET_BYTES"), let bytes = Int(String(cString: value)),
            bytes > 0
        else { return nil }
        return bytes
    }
}
