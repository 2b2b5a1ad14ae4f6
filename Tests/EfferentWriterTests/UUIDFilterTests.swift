import Testing
@testable import EfferentWriter

/// The receiver's Bloom filter over UUIDs: never a false "new", and few false "maybe".
@Suite struct UUIDFilterTests {
    static func random() -> PulsUUID { PulsUUID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }) }

    @Test func everyUUIDAddedIsFoundAndFewOthersAre() {
        var filter = UUIDFilter(capacity: 20_000)
        let added = (0..<20_000).map { _ in Self.random() }
        for uuid in added { filter.add(uuid) }
        #expect(filter.count == 20_000 && filter.capacity == 20_000)
        #expect(added.allSatisfy(filter.mayContain), "a UUID added is never taken for new")
        let others = (0..<20_000).filter { _ in filter.mayContain(Self.random()) }.count
        // Ten bits a UUID and four probes: about 1.2 % expected when full.
        #expect(others < 600, "\(others) of 20,000 new UUIDs taken for known")
    }
}
