/// Latency samples summarised by nearest-rank percentiles (no interpolation: every reported
/// figure is one that was measured).
struct Distribution: Sendable, Equatable {
    let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    var count: Int { sorted.count }
    var isEmpty: Bool { sorted.isEmpty }

    /// The nearest-rank `p`-th percentile (0 < p ≤ 100): the smallest sample such that at least
    /// p % of the samples are ≤ it. NaN when empty.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    var p50: Double { percentile(50) }
    var p90: Double { percentile(90) }
    var p99: Double { percentile(99) }
    var max: Double { sorted.last ?? .nan }
}
