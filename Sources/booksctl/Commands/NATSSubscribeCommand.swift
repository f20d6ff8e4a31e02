import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials
import Glibc
import Synchronization

/// `booksctl --nats URL subscribe`: the store's JetStream stream read as the socket's feed.
///
/// The same options with the same meanings as over the socket: the stream's messages go through
/// `NATSFeedPosition` (booksd's epoch and seq, not stream sequences), then the socket's own state
/// machines (`PlainFeedState`, or `MirrorState` for `--mirror`/`--initial`, seeded from the bucket)
/// and `SubscribeSink` (lines with `"store"`, `--exec`, `--count`, `--cursor-file`).
enum NATSSubscribeCommand {
    static func run(
        _ options: SubscribeOptions, _ target: NATSTarget, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        guard
            let since = SubscribeFailure.reported(
                to: err, { () throws(SubscribeFailure) in try SinceOption.start(options) })
        else { return .usage }
        let feed = try NATSFeed(options: target.options, prefix: target.prefix, store: target.store)
        let stopped = Atomic<Bool>(false)
        guard
            let sink = SubscribeFailure.reported(
                to: err,
                { () throws(SubscribeFailure) in
                    try SubscribeSink(
                        options, context, store: target.store, onDone: { stopped.store(true, ordering: .releasing) })
                })
        else { return .daemonError }
        let reader = Reader(
            feed: feed, sink: sink,
            mirror: options.mirror || options.initial
                ? MirrorState(
                    filter: options.filter, emitInitialSnapshot: options.initial) : nil,
            isStopped: { stopped.load(ordering: .acquiring) }, notice: { err.line("booksctl: \(TextCell.escape($0))") })
        let outcome: Result<Void, BooksClientError> = await NATSBooksClient.onThread {
            Result { () throws(BooksClientError) in try reader.run(since) }
        }
        try outcome.get()
        return .success
    }

    /// The reading loop, on its own thread.
    private struct Reader: Sendable {
        let feed: NATSFeed
        let sink: SubscribeSink
        let mirror: MirrorState?
        let isStopped: @Sendable () -> Bool
        let notice: @Sendable (String) -> Void

        func run(_ since: SinceOption?) throws(BooksClientError) {
            try feed.checkStoreExists()
            var position = NATSFeedPosition()
            var plain = PlainFeedState()
            var mirror = self.mirror
            var start: NATSDeliveryStart
            if mirror != nil {
                guard let state = try waitForBucket() else { return }
                report(mirror?.apply(.snapshot(state.snapshot)))
                position.seeded(
                    at: ResumePoint(epoch: state.snapshot.epoch, seq: state.snapshot.seq),
                    aheadVersions: state.aheadVersions)
                start = .sequence(state.streamSequence + 1)
            } else {
                let resume: NATSFeed.Resume
                switch since {
                case .cursor(let cursor): resume = try feed.resume(afterSeq: cursor.seq, epoch: cursor.epoch)
                case .seq(let seq): resume = try feed.resume(afterSeq: seq, epoch: nil)
                case .time(let date):
                    resume = NATSFeed.Resume(start: .time(Int64(date.timeIntervalSince1970 * 1_000_000_000)))
                case nil: resume = try feed.resumeAtEnd()
                }
                position = NATSFeedPosition(after: resume.point)
                plain = PlainFeedState(resumingAt: resume.point)
                if let gap = resume.gap {
                    announce(gap)
                    report(plain.apply(gap))
                }
                start = resume.start
            }
            var failure: BooksClientError?
            feed.run(from: start, onNotice: notice, isCancelled: isStopped) { item in
                for fed in position.apply(item.event) {
                    announce(fed)
                    guard mirror != nil else {
                        report(plain.apply(fed))
                        continue
                    }
                    // After a re-seeding below, what the bucket showed is left out of the change.
                    let feedItem = position.leavingOutWhatTheBucketShowed(fed)
                    report(mirror?.apply(feedItem))
                    guard case .resyncRequired(let epoch, let seq, _) = feedItem else { continue }
                    let point = ResumePoint(epoch: epoch, seq: seq)
                    do throws(BooksClientError) {
                        let state = try feed.bucketState(at: point, streamSequence: item.streamSequence)
                        report(mirror?.apply(.snapshot(state.snapshot)))
                        position.seeded(at: point, aheadVersions: state.aheadVersions)
                    } catch {
                        failure = error
                        return false
                    }
                }
                return !isStopped()
            }
            if let failure { throw failure }
        }

        /// The bucket's state once booksd has published (nil when stopped first).
        private func waitForBucket() throws(BooksClientError) -> NATSFeed.BucketState? {
            var announced = false
            while !isStopped() {
                if let state = try feed.bucketState() { return state }
                if !announced { notice("nothing published on the stream yet; waiting for booksd") }
                announced = true
                usleep(200_000)
            }
            return nil
        }

        /// The socket's stderr notice for a gap.
        private func announce(_ item: FeedItem) {
            guard case .resyncRequired(_, _, let reason) = item else { return }
            var notices = ReconnectNotices(mirror: mirror != nil)
            if let line = notices.notice(for: .resyncRequired(reason: reason)) { notice(line) }
        }

        private func report(_ update: MirrorUpdate?) {
            if let update { sink.handle(update) }
        }
    }
}
