import EfferentTestSupport
import EfferentCrypto
import EfferentCompression
import Testing
@testable import EfferentCore

@Suite struct EditTests {
    let now: Int64 = 1_757_228_400
    func put(_ metric: String = "dietaryEnergy", start: Int64 = 1_757_220_000, end: Int64 = 1_757_220_000,
             value: Double? = 650, unit: String? = "kcal", stage: String? = nil, id: String = "agent:meal:2026-09-07:lunch") -> EditItem {
        .put(EditItem.Put(id: id, metric: metric, start: start, end: end, value: value, unit: unit, stage: stage))
    }

    @Test func validItems() throws {
        try put().validate(now: now)
        try put("sleep", start: now - 8 * 3600, end: now - 3600, value: nil, unit: nil, stage: "asleepCore").validate(now: now)
        try put("sleep", start: now - 86_400, end: now, value: nil, unit: nil, stage: "inBed").validate(now: now)
        for metric in WritableMetric.allCases where !metric.isCategory {
            let bounds = try #require(metric.bounds)
            try put(metric.rawValue, value: bounds.lowerBound, unit: metric.unit).validate(now: now)
            try put(metric.rawValue, value: bounds.upperBound, unit: metric.unit).validate(now: now)
        }
        try EditItem.delete(id: "a").validate(now: now)
        try EditItem.delete(id: String(repeating: "x", count: 120)).validate(now: now)
    }

    /// Every rule of §8, with its word.
    @Test func everyValidationWord() {
        let cases: [(EditItem, EditItemError, OutcomeCode)] = [
            (put(id: ""), .badID, .malformed),
            (put(id: "meal lunch"), .badID, .malformed),
            (EditItem.delete(id: String(repeating: "x", count: 121)), .badID, .malformed),
            (EditItem.delete(id: "é"), .badID, .malformed),
            (put("steps", unit: "count"), .unknownMetric, .unknownMetric),
            (put("sleep", value: nil, unit: "min", stage: "awake"), .unitOnSleep, .badUnit),
            (put("sleep", value: 1, unit: nil, stage: "awake"), .valueOnSleep, .malformed),
            (put("sleep", value: nil, unit: nil, stage: nil), .missingStage, .malformed),
            (put("sleep", value: nil, unit: nil, stage: "unknown"), .unknownStage, .malformed),
            (put(stage: "awake"), .stageOnQuantity, .malformed),
            (put(unit: "kJ"), .wrongUnit(expected: "kcal"), .badUnit),
            (put("dietaryWater", unit: "ml"), .wrongUnit(expected: "mL"), .badUnit),
            (put(unit: nil), .wrongUnit(expected: "kcal"), .badUnit),
            (put(value: nil), .missingValue, .malformed),
            (put(value: -1), .badValue, .malformed),
            (put(value: .infinity), .badValue, .malformed),
            (put(value: .nan), .badValue, .malformed),
            // Physical bounds (PhysicalBounds): HealthKit refuses these, so the phone's word is healthRefused.
            (put("bodyMass", value: 1e308, unit: "kg"), .outsideBounds(metric: .bodyMass, bounds: 0.1...1000), .healthRefused),
            (put("bodyMass", value: 1000.5, unit: "kg"), .outsideBounds(metric: .bodyMass, bounds: 0.1...1000), .healthRefused),
            (put("bodyMass", value: 0, unit: "kg"), .outsideBounds(metric: .bodyMass, bounds: 0.1...1000), .healthRefused),
            (put(value: 1_000_001), .outsideBounds(metric: .dietaryEnergy, bounds: 0...1_000_000), .healthRefused),
            (put("dietaryWater", value: 1e12, unit: "mL"), .outsideBounds(metric: .dietaryWater, bounds: 0...100_000_000), .healthRefused),
            (put(start: -5, end: 10), .backwards, .badRange),
            (put(start: 100, end: 99), .backwards, .badRange),
            (put(start: now, end: now + 1), .future, .badRange),
            (put("sleep", start: now - 86_401, end: now, value: nil, unit: nil, stage: "asleepDeep"), .sleepTooLong, .badRange),
        ]
        for (item, error, code) in cases {
            #expect(throws: error) { try item.validate(now: now) }
            #expect(error.code == code)
            #expect(!error.description.isEmpty)
        }
    }

    /// §8: the exact plaintext, member by member in the fixed order, absent members omitted.
    @Test func exactPlaintext() throws {
        let items = [put(value: 650.5),
                     put("sleep", start: 1_757_190_000, end: 1_757_200_000, value: nil, unit: nil, stage: "asleepREM", id: "s1"),
                     EditItem.delete(id: "old")]
        let json = String(decoding: try EditPack.plaintext(items, now: now), as: UTF8.self)
        #expect(json == #"{"v":1,"items":[{"op":"put","id":"agent:meal:2026-09-07:lunch","metric":"dietaryEnergy","start":1757220000,"end":1757220000,"value":650.5,"unit":"kcal"},"#
            + #"{"op":"put","id":"s1","metric":"sleep","start":1757190000,"end":1757200000,"stage":"asleepREM"},{"op":"delete","id":"old"}]}"#)
        #expect(String(decoding: try EditPack.plaintext([put(value: 650)], now: now), as: UTF8.self).contains(#""value":650,"#))
        let packed = try EditPack.pack(items, now: now)
        #expect(try Inflater().decompress(packed, limit: 1 << 20) == Array(json.utf8))
        #expect(try EditPack.unpack(packed) == items)
    }

    @Test func packRefusals() {
        #expect(throws: EditError.itemCount(0)) { try EditPack.pack([], now: now) }
        #expect(throws: EditError.itemCount(501)) { try EditPack.pack(Array(repeating: EditItem.delete(id: "a"), count: 501), now: now) }
        #expect(throws: EditError.item(index: 1, .future)) { try EditPack.pack([put(), put(end: now + 60)], now: now) }
        #expect(EditError.item(index: 1, .future).code == .badRange)
    }

    func deflate(_ text: String) throws -> [UInt8] { try Deflater().compress(Array(text.utf8)) }

    @Test func unpackRefusals() throws {
        let shapes = [
            #"{"v":2,"items":[{"op":"delete","id":"a"}]}"#,
            #"{"items":[{"op":"delete","id":"a"}]}"#,
            #"{"v":1,"items":[{"op":"delete","id":"a"}],"extra":1}"#,
            #"{"v":1,"items":{}}"#,
            #"{"v":1,"items":[1]}"#,
            #"{"v":1,"items":[{"op":"delete"}]}"#,
            #"{"v":1,"items":[{"op":"remove","id":"a"}]}"#,
            #"{"v":1,"items":[{"op":"delete","id":"a","metric":"sleep"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"sleep","start":1,"end":2,"stage":"awake","note":"x"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"sleep","start":1.5,"end":2,"stage":"awake"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"sleep","start":"1","end":2,"stage":"awake"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"sleep","end":2,"stage":"awake"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"dietaryFat","start":1,"end":2,"value":"3","unit":"g"}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":"dietaryFat","start":1,"end":2,"value":3,"unit":null}]}"#,
            #"{"v":1,"items":[{"op":"put","id":"a","metric":7,"start":1,"end":2}]}"#,
            #"[]"#,
        ]
        for shape in shapes {
            #expect(throws: EditError.self) { try EditPack.unpack(deflate(shape)) }
        }
        #expect(throws: EditError.itemCount(0)) { try EditPack.unpack(deflate(#"{"v":1,"items":[]}"#)) }
        #expect(throws: EditError.notJSON) { try EditPack.unpack(deflate(#"{"v":1,"v":1}"#)) }
        #expect(throws: EditError.compression) { try EditPack.unpack([0xFF, 0xFF, 0xFF]) }
        #expect(throws: EditError.compression) { try EditPack.unpack((try deflate(#"{"v":1}"#)) + [0]) }
        // A deflate bomb: 2 MiB of spaces around a valid edit.
        let bomb = String(repeating: " ", count: 2 << 20) + #"{"v":1,"items":[{"op":"delete","id":"a"}]}"#
        #expect(throws: EditError.tooLarge) { try EditPack.unpack(deflate(bomb)) }
        #expect(EditError.tooLarge.code == .malformed)
        // Unpacking checks shape only; a negative start is the writer's badRange, later.
        let items = try EditPack.unpack(deflate(#"{"v":1,"items":[{"op":"put","id":"a","metric":"sleep","start":-1,"end":2,"stage":"awake"}]}"#))
        #expect(throws: EditItemError.backwards) { try items[0].validate(now: now) }
    }

    @Test func editNames() throws {
        let name = EditName(milliseconds: 1_757_228_400_000, random: [0, 0x44, 0x32, 0x14, 0xC7])
        #expect(name.rawValue == "1757228400000-abcdefgh", "five bytes are the eight characters of the §13 vector name")
        #expect(name.milliseconds == 1_757_228_400_000)
        #expect(try EditName(name.rawValue) == name)
        #expect(EditName(milliseconds: 5, random: [1, 2, 3, 4, 5]).rawValue.hasPrefix("0000000000005-"))
        let fresh = EditName(milliseconds: 1_757_228_400_001)
        #expect(try EditName(fresh.rawValue) == fresh)
        #expect(name < fresh)
        for bad in ["", "1757228400000-abcdefg", "1757228400000-abcdefghi", "175722840000-abcdefghi", "1757228400000_abcdefgh",
                    "1757228400000-ABCDEFGH", "1757228400000-abcdefg1", "17572284000a0-abcdefgh", "1757228400000-abcdefgh/"] {
            #expect(throws: EditError.malformedName) { try EditName(bad) }
        }
    }

    @Test func outcomes() throws {
        let outcome = EditOutcome(applied: 2, failed: [EditOutcome.Failure(item: 1, code: .badUnit)])
        #expect(String(decoding: outcome.encoded, as: UTF8.self) == #"{"applied":2,"failed":[{"code":"badUnit","item":1}]}"#)
        #expect(try EditOutcome(decoding: outcome.encoded) == outcome)
        #expect(String(decoding: EditOutcome.refusedWhole(.cannotOpen).encoded, as: UTF8.self)
            == #"{"applied":0,"failed":[{"code":"cannotOpen","item":0}]}"#)
        #expect(String(decoding: EditOutcome(applied: 3, failed: []).encoded, as: UTF8.self) == #"{"applied":3,"failed":[]}"#)
        // The 2026-09-08 service's `refused`, and the service's own members on GET /o/<name>.
        let legacy = Array(#"{"applied":0,"refused":[{"item":0,"code":"declined"}]}"#.utf8)
        #expect(try EditOutcome(decoding: legacy) == EditOutcome(applied: 0, failed: [.init(item: 0, code: .declined)]))
        let served = Array(#"{"applied":1,"failed":[],"bytes":120,"at":"2026-09-07T07:00:00.000Z"}"#.utf8)
        #expect(try EditOutcome(decoding: served, allowingServiceMembers: true).applied == 1)
        for bad in [
            #"{"applied":1,"failed":[],"bytes":120}"#,
            #"{"applied":1}"#,
            #"{"applied":1,"failed":[],"refused":[]}"#,
            #"{"applied":-1,"failed":[]}"#,
            #"{"applied":1.5,"failed":[]}"#,
            #"{"applied":1,"failed":[{"code":"nope","item":0}]}"#,
            #"{"applied":1,"failed":[{"code":"badUnit","item":-1}]}"#,
            #"{"applied":1,"failed":[{"code":"badUnit"}]}"#,
            #"{"applied":1,"failed":[{"code":"badUnit","item":0,"why":"x"}]}"#,
            #"[]"#, "",
        ] {
            #expect(throws: EditError.self) { try EditOutcome(decoding: Array(bad.utf8)) }
        }
        #expect(OutcomeCode.allCases.count == 12)
        #expect(Set(OutcomeCode.allCases.map(\.rawValue)) == ["unknownMetric", "badUnit", "badRange", "unauthorized", "notFound", "healthRefused",
                                                              "badSignature", "cannotOpen", "malformed", "awaitingApproval", "declined", "replayed"])
    }

    @Test func replayRule() throws {
        let name = try EditName("1757228400000-abcdefgh")
        let seen = ReplayRule.AnsweredEdit(digest: Sodium.sha256([1]), name: name, signedAt: 10_000, answeredAt: 10_050)
        #expect(!ReplayRule.isReplay(digest: Sodium.sha256([2]), signedAt: 9_000, answered: []))
        #expect(ReplayRule.isReplay(digest: Sodium.sha256([1]), signedAt: 20_000, answered: [seen]), "the same bytes under any name")
        #expect(!ReplayRule.isReplay(digest: Sodium.sha256([2]), signedAt: 10_000 - 900, answered: [seen]), "exactly 15 minutes is still fresh")
        #expect(ReplayRule.isReplay(digest: Sodium.sha256([2]), signedAt: 10_000 - 901, answered: [seen]))
        #expect(!ReplayRule.isReplay(digest: Sodium.sha256([2]), signedAt: 10_001, answered: [seen]))
        let old = ReplayRule.AnsweredEdit(digest: Sodium.sha256([3]), name: name, signedAt: 8_000, answeredAt: 8_010)
        #expect(ReplayRule.pruned([old, seen]) == [seen])
        #expect(ReplayRule.pruned([]).isEmpty)
    }

    /// Seeded: random valid edits pack and unpack to themselves; random bytes never trap.
    @Test func randomEditsRoundTrip() throws {
        var random = WireRandom(seed: 0xED17)
        let idChars = Array("abcXYZ019._:-")
        for _ in 0..<200 {
            var items = [EditItem]()
            for _ in 0..<Int.random(in: 1...20, using: &random) {
                let id = String((0..<Int.random(in: 1...40, using: &random)).map { _ in idChars.randomElement(using: &random)! })
                let metric = WritableMetric.allCases.randomElement(using: &random)!
                let start = Int64.random(in: 0...(now - 90_000), using: &random)
                switch (Int.random(in: 0..<4, using: &random), metric.isCategory) {
                case (0, _):
                    items.append(.delete(id: id))
                case (_, true):
                    items.append(put(metric.rawValue, start: start, end: start + Int64.random(in: 0...86_400, using: &random), value: nil, unit: nil,
                                     stage: WritableMetric.sleepStages.sorted().randomElement(using: &random), id: id))
                case (_, false):
                    let drawn = Bool.random(using: &random) ? Double(Int.random(in: 0...5000, using: &random)) : Double.random(in: 0...1e6, using: &random)
                    let value = min(max(drawn, metric.bounds!.lowerBound), metric.bounds!.upperBound)
                    items.append(put(metric.rawValue, start: start, end: start + Int64.random(in: 0...3600, using: &random), value: value, unit: metric.unit, id: id))
                }
            }
            let packed = try EditPack.pack(items, now: now)
            #expect(try EditPack.unpack(packed) == items)
            var flipped = packed
            flipped[Int.random(in: 0..<packed.count, using: &random)] ^= 0x5A
            _ = try? EditPack.unpack(flipped)
        }
        for _ in 0..<500 {
            _ = try? EditPack.unpack(random.bytes(Int.random(in: 0...80, using: &random)))
            _ = try? EditOutcome(decoding: random.bytes(Int.random(in: 0...40, using: &random)))
        }
    }
}
