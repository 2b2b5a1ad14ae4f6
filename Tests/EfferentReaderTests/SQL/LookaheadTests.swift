@testable import EfferentReader
import EfferentSystem
import Foundation
import Testing

/// Items come in order, one being made ahead; an item that fails is thrown where it is asked for.
@Suite struct LookaheadTests {
    struct Refused: Error, Equatable { let index: Int }

    /// Counts how many items are being made at once.
    final class Gauge: Sendable {
        private let counts = Mutex((now: 0, most: 0))
        var most: Int { counts.withLock { $0.most } }
        func enter() { counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { counts.withLock { $0.now -= 1 } }
    }

    @Test func itemsComeInOrderAndNothingAfterTheLast() throws {
        let gauge = Gauge()
        let ahead = Lookahead(count: 5) { index in
            gauge.enter()
            defer { gauge.leave() }
            usleep(1000)
            return index * 10
        }
        var got = [Int]()
        while let item = try ahead.next() { got.append(item) }
        #expect(got == [0, 10, 20, 30, 40])
        #expect(try ahead.next() == nil)
        #expect(gauge.most == 1)
    }

    @Test func aFailingItemIsThrownWhenItsTurnComes() throws {
        let ahead = Lookahead(count: 4) { index in
            if index == 2 { throw Refused(index: index) }
            return index
        }
        #expect(try ahead.next() == 0)
        #expect(try ahead.next() == 1)
        #expect(throws: Refused(index: 2)) { try ahead.next() }
    }

    @Test func noItemsMeansNoThread() throws {
        let ahead = Lookahead<Int>(count: 0) { _ in Issue.record("made an item of none"); return 0 }
        #expect(try ahead.next() == nil)
    }
}
