import EfferentTestSupport
import Testing
@testable import EfferentCore

@Suite struct FrameTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    @Test func packLayout() throws {
        let bytes = try Frame.pack([Frame.Day(day: day("2026-08-07"), sealed: [0x02, 0xAA]),
                                    Frame.Day(day: day("2026-08-08"), sealed: [UInt8](repeating: 7, count: 300))])
        #expect(Array(bytes.prefix(16)) == Array("2026-08-07".utf8) + [0, 0, 0, 2, 0x02, 0xAA])
        #expect(Array(bytes[16..<30]) == Array("2026-08-08".utf8) + [0, 0, 1, 0x2C])
        #expect(bytes.count == 14 + 2 + 14 + 300)
        let days = try Frame.unpack(bytes)
        #expect(days.map(\.day.description) == ["2026-08-07", "2026-08-08"])
        #expect(Array(days[0].sealed) == [0x02, 0xAA])
        #expect(days[1].sealed.count == 300)
    }

    @Test func packRefusals() {
        let d = day("2026-08-07")
        #expect(throws: FrameError.noDays) { try Frame.pack([]) }
        #expect(throws: FrameError.emptyBody(day: "2026-08-07")) { try Frame.pack([Frame.Day(day: d, sealed: [])]) }
        #expect(throws: FrameError.order(previous: "2026-08-07", next: "2026-08-07")) {
            try Frame.pack([Frame.Day(day: d, sealed: [1]), Frame.Day(day: d, sealed: [1])])
        }
        #expect(throws: FrameError.order(previous: "2026-08-08", next: "2026-08-07")) {
            try Frame.pack([Frame.Day(day: d.next, sealed: [1]), Frame.Day(day: d, sealed: [1])])
        }
    }

    @Test func emptyBody() throws {
        #expect(try Frame.unpack([UInt8](), allowingEmpty: true).isEmpty)
        #expect(throws: FrameError.noDays) { try Frame.unpack([UInt8]()) }
    }

    @Test func unpackRefusalsWithTheProtocolSentences() throws {
        let good = try Frame.pack([Frame.Day(day: day("2026-08-07"), sealed: [1, 2, 3])])
        func frame(_ text: String, _ length: [UInt8], _ blob: [UInt8]) -> [UInt8] { Array(text.utf8) + length + blob }

        let cases: [([UInt8], FrameError, String)] = [
            (good + [0x32, 0x30], .leftover(count: 2), "2 bytes left over where a day was expected"),
            (Array(good.prefix(13)), .leftover(count: 13), "13 bytes left over where a day was expected"),
            (Array(good.dropLast()), .short(day: "2026-08-07", says: 3, has: 2), "2026-08-07 says 3 bytes and only 2 are there"),
            (good + good, .order(previous: "2026-08-07", next: "2026-08-07"), "days must ascend without repeats: 2026-08-07 then 2026-08-07"),
            (frame("2026-08-07", [0, 0, 0, 0], []), .emptyBody(day: "2026-08-07"), "2026-08-07 carries no body"),
            (frame("2026-02-30", [0, 0, 0, 1], [9]), .notADate(text: "\"2026-02-30\""), "\"2026-02-30\" is not a real date"),
            (frame("2026-8-7xx", [0, 0, 0, 1], [9]), .notADate(text: "\"2026-8-7xx\""), "\"2026-8-7xx\" is not a real date"),
            ([0xFF] + frame("026-08-07", [0, 0, 0, 1], [9]), .notADate(text: nil), "a day in the frame is not a real date"),
            (frame("2026-08-07", [0xFF, 0xFF, 0xFF, 0xFF], [1]), .short(day: "2026-08-07", says: 4_294_967_295, has: 1),
             "2026-08-07 says 4294967295 bytes and only 1 are there"),
        ]
        for (bytes, error, sentence) in cases {
            #expect(throws: error) { try Frame.unpack(bytes) }
            #expect(error.description == sentence)
        }
        let later = try Frame.pack([Frame.Day(day: day("2026-08-09"), sealed: [1])])
        #expect(throws: FrameError.order(previous: "2026-08-09", next: "2026-08-07")) { try Frame.unpack(later + good) }
    }

    /// Unpacking hands back slices of the body and works on a slice that does not start at 0.
    @Test func unpackDoesNotCopy() throws {
        let body = [0xEE] + (try Frame.pack([Frame.Day(day: day("1900-01-01"), sealed: [5, 6])]))
        let days = try Frame.unpack(body[1...])
        #expect(days[0].sealed.startIndex == 15)
        #expect(Array(days[0].sealed) == [5, 6])
    }

    /// Seeded: random frames round-trip, and every cut or flipped frame is refused or re-read
    /// without trapping.
    @Test func randomFramesRoundTripAndNeverTrap() throws {
        var random = WireRandom(seed: 0x5EED_F4A3)
        for _ in 0..<300 {
            var current = CalendarDay(daysSinceEpoch: Int64.random(in: -25_000...30_000, using: &random))
            var days = [Frame.Day]()
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                days.append(Frame.Day(day: current, sealed: random.bytes(Int.random(in: 1...40, using: &random))))
                current = current.adding(days: Int.random(in: 1...5, using: &random))
            }
            let bytes = try Frame.pack(days)
            #expect(try Frame.unpack(bytes) == days)
            // A cut frame is refused, unless the cut falls between two days: then it reads as
            // exactly the days before the cut.
            var boundaries = Set<Int>()
            var offset = 0
            for entry in days { offset += 14 + entry.sealed.count; boundaries.insert(offset) }
            let cut = Int.random(in: 0..<bytes.count, using: &random)
            if let read = try? Frame.unpack(Array(bytes.prefix(cut))) {
                #expect(boundaries.contains(cut))
                #expect(read == Array(days.prefix(read.count)))
            } else {
                #expect(!boundaries.contains(cut))
            }
            var flipped = bytes
            flipped[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            _ = try? Frame.unpack(flipped)
        }
        for _ in 0..<2_000 {
            _ = try? Frame.unpack(random.bytes(Int.random(in: 0...64, using: &random)), allowingEmpty: true)
        }
    }
}
