import CInotifyTools
import Testing

@testable import BooksDaemon

/// The hub's dispatch table, without the kernel.
@Suite struct InotifyHubRoutesTests {
    let closeWrite = UInt32(IN_CLOSE_WRITE)

    func routes() -> InotifyHubRoutes {
        var routes = InotifyHubRoutes()
        routes.addFile(1, directory: "/a", name: "x.txt")
        routes.addFile(2, directory: "/a", name: "y.txt")
        routes.addListener(3, directory: "/a")
        routes.addFile(4, directory: "/b", name: "x.txt")
        routes.setWatch(10, for: "/a")
        routes.setWatch(11, for: "/b")
        return routes
    }

    @Test func oneWatchPerDirectory() {
        let routes = routes()
        #expect(routes.watchCount == 2)
        #expect(routes.unwatched.isEmpty)
    }

    @Test func eventsGoToTheExactNameOfTheirDirectoryAndToListeners() {
        let routes = routes()
        #expect(
            routes.route(wd: 10, mask: closeWrite, name: "x.txt").deliveries == [
                .file(1, .contentMayHaveChanged), .listener(3, name: "x.txt", .contentMayHaveChanged),
            ])
        #expect(routes.route(wd: 11, mask: closeWrite, name: "x.txt").deliveries == [.file(4, .contentMayHaveChanged)])
        #expect(
            routes.route(wd: 10, mask: UInt32(IN_MOVED_FROM), name: ".x.txt.swp").deliveries == [
                .listener(3, name: ".x.txt.swp", .removed)
            ])
        #expect(routes.route(wd: 10, mask: UInt32(IN_MODIFY), name: "x.txt").deliveries.isEmpty)
        #expect(routes.route(wd: 12, mask: closeWrite, name: "x.txt").deliveries.isEmpty)
        #expect(routes.route(wd: 10, mask: UInt32(IN_CREATE) | UInt32(IN_ISDIR), name: "sub").deliveries.isEmpty)
    }

    @Test func aLostDirectoryOnlyConcernsItsOwnRegistrations() {
        let routes = routes()
        let (deliveries, lost) = routes.route(wd: 11, mask: UInt32(IN_DELETE_SELF), name: "")
        #expect(lost == "/b")
        #expect(deliveries == [.file(4, .watchLost)])
        let overflow = routes.route(wd: -1, mask: UInt32(IN_Q_OVERFLOW), name: "").deliveries
        let ids: [UInt64] = overflow.map { delivery in
            switch delivery {
            case .file(let id, _), .listener(let id, _, _): id
            }
        }
        #expect(Set(ids) == [1, 2, 3, 4])
    }

    @Test func theLastRegistrationGoingAbandonsTheWatch() {
        var routes = routes()
        #expect(routes.remove(4) == "/b")
        #expect(routes.abandoned.map(\.0) == ["/b"])
        #expect(routes.remove(1) == nil)
        routes.setWatch(-1, for: "/b")
        #expect(routes.watchCount == 1)
        #expect(routes.directories["/b"] == nil)
    }
}
