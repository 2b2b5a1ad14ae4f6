import Testing
@testable import EfferentReceiver
import EfferentWriter

/// The receiver's Bloom filter over UUIDs: never a false "new", and few false "maybe".
@Suite struct UUIDFilterTests {
    static func random() -> PulsUUID { PulsUUID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }) }

    @Test func everyUUIDAddedIsFoundAndFewOthersAre() {
        var filter = UUIDFilter(capacity: 1 << 16)
        let added = (0..<(1 << 16)).map { _ in Self.random() }
        for uuid in added { filter.add(uuid) }
        #expect(filter.count == 1 << 16 && filter.capacity == 1 << 16)
        #expect(added.allSatisfy(filter.mayContain), "a UUID added is never taken for new")
        let others = (0..<(1 << 16)).filter { _ in filter.mayContain(Self.random()) }.count
        // Ten bits a UUID and four probes: about 1.2 % expected when full.
        #expect(others < 2_000, "\(others) of 65,536 new UUIDs taken for known")
    }

    @Test func uuidsAreReadInTheCanonicalFormInAnyCase() {
        let uuid = PulsUUID("0aB1c2D3-e4F5-4a6b-8C7d-E8f90A1b2C3d")
        #expect(uuid?.bytes == [0x0a, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x4a, 0x6b, 0x8c, 0x7d, 0xe8, 0xf9, 0x0a, 0x1b, 0x2c, 0x3d])
        #expect(uuid?.description == "0ab1c2d3-e4f5-4a6b-8c7d-e8f90a1b2c3d")
        for bad in ["0aB1c2D3e-4F5-4a6b-8C7d-E8f90A1b2C3d", "0aB1c2D3-e4F5-4a6b-8C7d-E8f90A1b2C3", "0aB1c2D3-e4F5-4a6b-8C7d-E8f90A1b2C3dd",
                    "0aB1c2D3-e4F5-4a6b-8C7d-E8f90A1b2C3g", "{aB1c2D3-e4F5-4a6b-8C7d-E8f90A1b2C3d", ""] {
            #expect(PulsUUID(bad) == nil, "\(bad)")
        }
    }
}
