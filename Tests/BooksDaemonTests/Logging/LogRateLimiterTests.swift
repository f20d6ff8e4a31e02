import Testing

@testable import BooksDaemon

@Suite struct LogRateLimiterTests {
    @Test func aBurstPerKeyThenSilenceThenACountOfWhatWasSuppressed() {
        var limiter = LogRateLimiter(burst: 2, interval: .seconds(60))
        let t0 = ContinuousClock.now
        #expect(limiter.admit("refused", key: "uid 7", now: t0) == "refused")
        #expect(limiter.admit("refused", key: "uid 7", now: t0 + .seconds(1)) == "refused")
        for k in 0..<1000 { #expect(limiter.admit("refused", key: "uid 7", now: t0 + .milliseconds(1000 + k)) == nil) }
        #expect(limiter.admit("other", key: "uid 8", now: t0 + .seconds(2)) == "other", "keys are limited apart")
        #expect(
            limiter.admit("refused", key: "uid 7", now: t0 + .seconds(61))
                == "refused (1000 similar messages suppressed)")
        #expect(limiter.admit("refused", key: "uid 7", now: t0 + .seconds(62)) == "refused")
    }

    @Test func manyKeysDoNotGrowWithoutBound() {
        var limiter = LogRateLimiter(burst: 1, interval: .seconds(60), maxKeys: 8)
        let t0 = ContinuousClock.now
        for k in 0..<100 { #expect(limiter.admit("x", key: "k\(k)", now: t0) == "x") }
        #expect(limiter.admit("x", key: "k99", now: t0) == nil)
    }
}
