import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

@Suite struct NATSPublisherStateMachineTests {
    @Test func aFreshStreamGetsASnapshotThenEveryChangeSetOnceInOrder() {
        var driver = NATSPublisherDriver(startSeq: 3)
        driver.connect()
        #expect(driver.stream == ["default:E:3:snapshot"])
        for _ in 0..<5 { driver.edit() }
        #expect(driver.publishedSeqs == [4, 5, 6, 7, 8])
        #expect(driver.machine.buffer.isEmpty)
    }

    @Test func nothingIsStartedWhileDisconnected() {
        var driver = NATSPublisherDriver()
        driver.edit()
        driver.edit()
        #expect(driver.stream.isEmpty)
        #expect(driver.machine.operation == nil)
        driver.connect()
        #expect(driver.stream.count == 1, "the stream had nothing: a snapshot at seq 2 stands for both")
        #expect(driver.stream.last == "default:E:2:snapshot")
    }

    @Test func aStreamInTheSameLineageIsContinuedFromItsEnd() {
        var driver = NATSPublisherDriver(stream: ["default:E:1", "default:E:2"])
        driver.edit(handOver: false)
        driver.edit(handOver: false)
        driver.edit()
        driver.connect()
        #expect(driver.publishedSeqs == [1, 2, 3])
        #expect(driver.snapshots == 0)
    }

    @Test func anAcknowledgementLostAfterStoringIsNotPublishedTwice() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.failNextPublishes = [.afterStore]
        driver.edit()
        driver.edit()
        #expect(driver.publishedSeqs == [1], "nothing more until the retry")
        driver.fireRetry()
        #expect(driver.publishedSeqs == [1, 2])
        #expect(driver.logs.contains { $0.0 == .notice && $0.1.contains("recovered") })
    }

    @Test func aPublishThatFailedBeforeStoringIsRetried() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.failNextPublishes = [.beforeStore, .beforeStore]
        driver.edit()
        driver.fireRetry()
        #expect(driver.publishedSeqs.isEmpty)
        driver.fireRetry()
        #expect(driver.publishedSeqs == [1])
        #expect(driver.logs.filter { $0.0 == .warning }.count == 1, "one warning per outage, not one per attempt")
    }

    @Test func editsDuringAnOutageAreCaughtUpOnReconnect() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.edit()
        driver.disconnect()
        for _ in 0..<20 { driver.edit() }
        #expect(driver.publishedSeqs == [1])
        driver.connect()
        #expect(driver.publishedSeqs == Array(1...21))
        #expect(driver.logs.map(\.0) == [.warning, .notice], "the loss and the return are logged once each")
    }

    @Test func anOverflowingBufferIsCaughtUpFromTheChangeLogWithoutAGap() {
        var driver = NATSPublisherDriver(capacity: 4)
        driver.connect()
        driver.disconnect()
        for _ in 0..<10 { driver.edit() }
        #expect(driver.machine.buffer.count == 4)
        #expect(driver.logs.contains { $0.0 == .warning && $0.1.contains("behind") })
        driver.connect()
        #expect(driver.publishedSeqs == Array(1...10))
        #expect(driver.snapshots == 1, "only the initial one")
    }

    @Test func droppedHandOversAreFetchedFromTheChangeLog() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.edit()
        driver.edit(handOver: false)
        driver.edit(handOver: false)
        driver.edit()
        #expect(driver.publishedSeqs == [1, 2, 3, 4])
    }

    @Test func aChangeLogThatNoLongerReachesBackLeadsToASnapshot() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.edit()
        driver.disconnect()
        for _ in 0..<5 { driver.edit(handOver: false) }
        driver.trimLog(after: 4)
        driver.connect()
        #expect(driver.publishedSeqs == [1])
        #expect(driver.stream.last == "default:E:6:snapshot")
        driver.edit()
        #expect(driver.publishedSeqs == [1, 7])
    }

    @Test func aStreamOfAnotherLineageIsFollowedBySnapshotAndThisLineage() {
        var driver = NATSPublisherDriver(epoch: "F", startSeq: 2, stream: ["default:E:1", "default:E:9"])
        driver.connect()
        driver.edit()
        #expect(driver.stream == ["default:E:1", "default:E:9", "default:F:2:snapshot", "default:F:3"])
    }

    @Test func aSnapshotAheadOfTheHandOverIsNotRepeated() {
        var driver = NATSPublisherDriver()
        driver.editUnannounced()
        driver.connect()
        #expect(driver.stream == ["default:E:1:snapshot"])
        #expect(driver.actionCount < 10, "no loop of snapshots")
        driver.feed(.changeSet(driver.engineLog[0]))
        driver.edit()
        #expect(driver.publishedSeqs == [2])
    }

    @Test func aStreamAheadOfTheHandOverIsContinued() {
        var driver = NATSPublisherDriver(stream: ["default:E:1"])
        driver.editUnannounced()
        driver.connect()
        #expect(driver.stream == ["default:E:1"])
        #expect(driver.actionCount < 10)
        driver.edit()
        #expect(driver.publishedSeqs == [1, 2])
    }

    @Test func aLostLeaseStopsPublishingUntilItIsTakenAgain() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.edit()
        driver.feed(.ownershipLost(reason: "taken"))
        #expect(!driver.machine.prepared)
        driver.edit()
        #expect(driver.publishedSeqs == [1], "nothing is published without the lease")
        #expect(driver.logs.contains { $0.1.contains("no longer owns the store: taken") })
        driver.fireRetry()
        #expect(driver.machine.prepared)
        #expect(driver.publishedSeqs == [1, 2], "taken again: the stream's end is read and continued")
    }

    @Test func changeSetsOfAnotherLineageAreIgnored() {
        var driver = NATSPublisherDriver()
        driver.connect()
        let foreign = SequencedChangeSet(
            epoch: "X", seq: 1, source: .file, time: .init(timeIntervalSince1970: 0), changes: ChangeSet())
        driver.feed(.changeSet(foreign))
        #expect(driver.machine.buffer.isEmpty)
        #expect(driver.machine.latestSeq == 0)
    }

    @Test func aFailedPreparationIsRetriedAndLoggedOnce() {
        var driver = NATSPublisherDriver()
        driver.reachable = false
        driver.feed(.connected)
        #expect(driver.retryScheduled)
        driver.fireRetry()
        #expect(driver.logs.count == 1)
        driver.reachable = true
        driver.fireRetry()
        #expect(driver.machine.prepared)
        #expect(driver.stream == ["default:E:0:snapshot"])
    }

    @Test func changeSetsThatWaitedArePublishedAsBatchesInOrder() {
        var driver = NATSPublisherDriver(startSeq: 1, stream: ["default:E:1"], batchLimit: 2)
        driver.disconnect()
        for _ in 0..<5 { driver.edit() }
        #expect(driver.batches.isEmpty)
        driver.connect()
        #expect(driver.batches == [[2, 3], [4, 5], [6]], "consecutive, at most batchLimit, oldest first")
        #expect(driver.publishedSeqs == [1, 2, 3, 4, 5, 6])
        driver.edit()
        #expect(driver.batches.last == [7], "a change set alone is a batch of one")
    }

    @Test func changeSetsHandedOverTogetherGoOutAsOneBatch() {
        var driver = NATSPublisherDriver(startSeq: 1, stream: ["default:E:1"])
        driver.connect()
        driver.edits(4)
        #expect(driver.batches == [[2, 3, 4, 5]])
        #expect(driver.publishedSeqs == [1, 2, 3, 4, 5])
    }

    @Test func aBatchWhoseAcknowledgementIsLostIsNotRepeated() {
        var driver = NATSPublisherDriver(startSeq: 1, stream: ["default:E:1"])
        driver.disconnect()
        for _ in 0..<3 { driver.edit() }
        driver.failNextPublishes = [.afterStore]
        driver.connect()
        #expect(driver.batches == [[2, 3, 4]])
        driver.edit()
        driver.fireRetry()
        #expect(driver.publishedSeqs == [1, 2, 3, 4, 5], "the stream's end was read again: only seq 5 follows")
        #expect(driver.batches.last == [5])
    }
}

@Suite struct NATSPublisherSkippingTests {
    @Test func aChangeSetThatCannotBePublishedIsSkippedWithASnapshotMarkerAndLaterOnesFollow() {
        var driver = NATSPublisherDriver()
        driver.connect()
        driver.unpublishable = [2]
        driver.edits(3)
        #expect(driver.publishedSeqs == [1], "the batch before it is stored")
        #expect(driver.stream.last == "default:E:3:snapshot", "a snapshot marker covers it and what followed")
        #expect(driver.logs.contains { $0.0 == .error && $0.1.contains("change set 2 cannot be published") })
        driver.edit()
        driver.edit()
        #expect(driver.publishedSeqs == [1, 4, 5])
        #expect(!driver.retryScheduled)
    }

    @Test func aStreamEndNotWrittenByThisBooksdIsFollowedByASnapshotMarkerAndPublishingGoesOn() {
        var driver = NATSPublisherDriver(stream: ["default:E:9999"])
        driver.untrustedLookups = 1
        driver.edit(handOver: false)
        driver.connect()
        #expect(driver.stream.last == "default:E:1:snapshot")
        #expect(driver.logs.contains { $0.0 == .warning && $0.1.contains("not believed") })
        driver.edit()
        driver.edit()
        #expect(driver.publishedSeqs.suffix(2) == [2, 3])
        #expect(driver.machine.publishedSeq == 3)
    }
}

@Suite struct NATSNamingTests {
    @Test func bookIDsRoundTripThroughBucketKeys() {
        let ids = ["plain-ID_1", "a.b", "with space", "ü/ñ=x", "=41", "*>", "9F2C-UUID"]
        for id in ids {
            let key = NATSNaming.key(forBookID: id)
            #expect(key.utf8.allSatisfy { $0 < 128 && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: " ") })
            #expect(NATSNaming.bookID(fromKey: key) == id)
        }
        #expect(Set(ids.map(NATSNaming.key(forBookID:))).count == ids.count)
        #expect(NATSNaming.bookID(fromKey: "bad=4") == nil)
    }

    @Test func messageIDsNameTheirPositionForTheirStoreOnly() {
        let naming = NATSNaming(prefix: "books", store: "default")
        #expect(naming.position(fromMessageID: "default:E:12") == ResumePoint(epoch: "E", seq: 12))
        #expect(naming.position(fromMessageID: "default:E:12:snapshot") == ResumePoint(epoch: "E", seq: 12))
        #expect(naming.position(fromMessageID: "other:E:12") == nil)
        #expect(naming.position(fromMessageID: "default:E:x") == nil)
        #expect(naming.changesSubject == "books.default.changes")
        #expect(naming.bucketName == "books_default")
        #expect(!NATSNaming.isValidName("a.b") && NATSNaming.isValidName("a_b-1"))
    }
}
