import EfferentBenchFloor
import EfferentCompression
import EfferentCore
import EfferentReader
import Foundation

/// Issue 2's figures: a synthetic decade sealed and opened by the core, next to libsodium's HPKE
/// plus zlib written directly in C over the same bodies; issue 14's: the same decade again with
/// every type decision A.9 carries, measured a year at a time so its GPS fixes are never all in memory.
enum CoreBench {
    static func run() throws {
        try run(chunks: [{ SyntheticDecade.days() }], title: "Core: a decade of days (one core, median of 3)")
        // EFFERENT_BENCH_YEARS=n measures only the first n years of it (for a quick look while profiling).
        let span = 365 * min(10, max(1, Int(ProcessInfo.processInfo.environment["EFFERENT_BENCH_YEARS"] ?? "") ?? 10))
        let years = stride(from: 0, to: span, by: 365).map { first in { SyntheticDecade.days(first..<min(first + 365, 3650), everyType: true) } }
        try run(chunks: years, title: "Core: the same decade with every HealthKit type (routes, beats, ECGs, …), a year at a time")
    }

    /// What one pass over a part of the decade measured; parts add up.
    struct Tally {
        var days = 0, events = 0, sealedBytes = 0, lineSealedBytes = 0, bodyBytes = 0, largest = 0, over256KiB = 0
        var seal = 0.0, floorSeal = 0.0, open = 0.0, floorOpen = 0.0
        /// Open, inflate and decode to columns, no event built: what the answers from columns
        /// (the mirror's index, as sync writes it) pay per day.
        var openColumns = 0.0
        /// The same four in CPU seconds of the measuring thread.
        var cpu = (seal: 0.0, floorSeal: 0.0, open: 0.0, floorOpen: 0.0)
        var stages = (open: 0.0, inflate: 0.0, decode: 0.0, expand: 0.0)
        /// HPKE open alone over the floor's blobs: Swift's envelope, the C floor's (CPU seconds).
        var hpke = (swift: 0.0, floor: 0.0)
    }

    static func run(chunks: [() -> [(CalendarDay, [DayEvent])]], title: String) throws {
        var tally = Tally()
        for make in chunks { try measure(make(), into: &tally) }
        print("\nsynthetic decade: \(tally.days) days, \(tally.events) events (\(tally.events / max(tally.days, 1)) a day)")
        Measure.header(title)
        Measure.row("build + encode + deflate + seal, decade", Measure.format(tally.seal, "s", digits: 3),
                    "C deflate+HPKE " + Measure.format(tally.floorSeal, "s", digits: 3), ratio: tally.seal / tally.floorSeal, goal: "≤ 1.50× floor")
        Measure.row("open + inflate + decode + expand", Measure.format(Double(tally.days) / tally.open, "days/s", digits: 0),
                    "C HPKE+inflate " + Measure.format(Double(tally.days) / tally.floorOpen, "days/s", digits: 0),
                    ratio: tally.floorOpen / tally.open, goal: "≥ 0.50× floor")
        Measure.row("open + inflate + decode (columns, no event)", Measure.format(Double(tally.days) / tally.openColumns, "days/s", digits: 0),
                    "C HPKE+inflate " + Measure.format(Double(tally.days) / tally.floorOpen, "days/s", digits: 0),
                    ratio: tally.floorOpen / tally.openColumns, goal: "")
        print(String(format: "  in CPU time of the measuring thread (what other processes do not stretch): seal %.3f s against the floor's %.3f s (%.2f×), "
                     + "open %.0f days/s against the floor's %.0f (%.2f×)", tally.cpu.seal, tally.cpu.floorSeal, tally.cpu.seal / tally.cpu.floorSeal,
                     Double(tally.days) / tally.cpu.open, Double(tally.days) / tally.cpu.floorOpen, tally.cpu.floorOpen / tally.cpu.open))
        let perEvent = Double(tally.sealedBytes) / Double(tally.events), linePerEvent = Double(tally.lineSealedBytes) / Double(tally.events)
        Measure.row("sealed bytes per event", Measure.format(perEvent, "B", digits: 2),
                    "NDJSON lines " + Measure.format(linePerEvent, "B", digits: 2), ratio: perEvent / linePerEvent, goal: "≤ 4.5 B")
        // A published figure, not measured here: the seed's "4 MiB compressed" for a real decade of 994,336 events.
        print(String(format: "  published: the Efferent iPhone app's real decade, 4 MiB for 994,336 events = %.2f B an event "
                     + "(korchasa/efferent README, \"The wire format\"); this run %.2f B", 4 * 1_048_576.0 / 994_336, perEvent))
        print(String(format: "  open path by stage (CPU time): HPKE open %.3f s, inflate %.3f s, decode %.3f s, expand %.3f s",
                     tally.stages.open, tally.stages.inflate, tally.stages.decode, tally.stages.expand))
        print(String(format: "  HPKE open alone (CPU time): %.1f µs a day against the C floor's %.1f µs (%.2f×)",
                     tally.hpke.swift * 1e6 / Double(tally.days), tally.hpke.floor * 1e6 / Double(tally.days), tally.hpke.swift / tally.hpke.floor))
        print("  sealed decade \(String(format: "%.2f", Double(tally.sealedBytes) / 1_048_576)) MiB; uncompressed bodies "
              + "\(String(format: "%.1f", Double(tally.bodyBytes) / 1_048_576)) MiB; peak RSS \(String(format: "%.0f", Measure.peakRSSMiB)) MiB")
        print("  largest sealed day \(String(format: "%.1f", Double(tally.largest) / 1024)) KiB (limit 1024 KiB); "
              + "\(tally.over256KiB) days over 256 KiB")
    }

    static func measure(_ decade: [(CalendarDay, [DayEvent])], into tally: inout Tally) throws {
        let eventCount = decade.reduce(0) { $0 + $1.1.count }
        let reading = ReadingKey()
        let bucket = reading.bucket.rawValue

        // Efferent: events → canonical body → deflate → HPKE seal, one core.
        let deflater = try Deflater()
        var sealed = [[UInt8]](repeating: [], count: decade.count)
        var bodies = [[UInt8]](repeating: [], count: decade.count)
        let sealTime = try Measure.times {
            for (index, (day, events)) in decade.enumerated() {
                let body = DayBody(events: events, timeZone: "Europe/Berlin")
                sealed[index] = try SealedEnvelope.seal(try body.deflated(using: deflater), to: reading.publicKey,
                                                        aad: .day(bucket: bucket, day: day))
                bodies[index] = body.bytes
            }
        }

        // Floor: the same bodies, already encoded, deflated and sealed by C on the same libraries.
        let flatBodies = bodies.flatMap { $0 }
        let lengths = bodies.map(\.count)
        var scratch = [UInt8](repeating: 0, count: 8 * 1024 * 1024)
        var floorSealed: Int64 = 0
        let floorSealTime = Measure.times {
            floorSealed = BenchFloor.seal(flatBodies, lengths: lengths, to: reading.publicKey.rawRepresentation, scratch: &scratch)
        }
        guard floorSealed > 0 else { throw BenchError("the C seal floor failed") }

        // Efferent: open → inflate (16 MiB cap) → decode → expand into events with ids, each day's
        // events built as a reader of the mirror builds them (`MirrorSource`), then let go.
        let inflater = try Inflater()
        var expanded = 0
        var events = [ArchiveEvent]()
        let openTime = try Measure.times {
            expanded = 0
            for (index, (day, _)) in decade.enumerated() {
                let plaintext = try SealedEnvelope.open(sealed[index], with: reading.privateKey, aad: .day(bucket: bucket, day: day))
                guard case let .columnar(columns) = try DayBody.inflate(plaintext, using: inflater).decoded() else {
                    throw BenchError("a sealed day did not decode as layout 2")
                }
                events.removeAll(keepingCapacity: true)
                MirrorSource.appendEvents(of: columns, day: day, to: &events)
                expanded += events.count
            }
        }
        guard expanded == eventCount else { throw BenchError("opened \(expanded) events of \(eventCount)") }

        // The same path stopping at decoded columns: every series' rows counted, no event built.
        var rows = 0
        let columnsTime = try Measure.times {
            rows = 0
            for (index, (day, _)) in decade.enumerated() {
                let plaintext = try SealedEnvelope.open(sealed[index], with: reading.privateKey, aad: .day(bucket: bucket, day: day))
                guard case let .columnar(columns) = try DayBody.inflate(plaintext, using: inflater).decoded() else {
                    throw BenchError("a sealed day did not decode as layout 2")
                }
                rows += columns.series.reduce(0) { $0 + $1.count }
            }
        }
        guard rows == eventCount else { throw BenchError("decoded \(rows) rows of \(eventCount)") }

        // Floor: C opens and inflates blobs it sealed (same bodies, same AAD length).
        let floorBlobs = try floorSealedBlobs(bodies: bodies, reading: reading)
        var inflatedTotal: Int64 = 0
        let floorOpenTime = Measure.times {
            inflatedTotal = BenchFloor.open(floorBlobs.flat, lengths: floorBlobs.lengths,
                                            privateKey: reading.privateKey.rawRepresentation.revealed(),
                                            publicKey: reading.publicKey.rawRepresentation, scratch: &scratch)
        }
        guard inflatedTotal == Int64(flatBodies.count) else { throw BenchError("the C open floor failed") }

        // HPKE open alone, Swift's envelope against the C floor's, over the same blobs (one pass each).
        let floorAAD = EnvelopeAAD.day(bucket: "abcdefghijklmnopqrstuvwxyz", day: CalendarDay(year: 2026, month: 8, day: 7)!)
        var swiftOpened = 0
        let swiftHPKE = try Measure.times {
            var offset = 0
            swiftOpened = 0
            for length in floorBlobs.lengths {
                swiftOpened += try SealedEnvelope.open(Array(floorBlobs.flat[offset..<(offset + length)]), with: reading.privateKey,
                                                       aad: floorAAD).count
                offset += length
            }
        }
        var floorOpened: Int64 = 0
        let floorHPKE = Measure.times {
            floorOpened = BenchFloor.openHPKE(floorBlobs.flat, lengths: floorBlobs.lengths,
                                              privateKey: reading.privateKey.rawRepresentation.revealed(),
                                              publicKey: reading.publicKey.rawRepresentation, scratch: &scratch)
        }
        guard floorOpened == Int64(swiftOpened) else { throw BenchError("the C HPKE floor opened \(floorOpened) bytes, Swift \(swiftOpened)") }

        // Where the open path's time goes, one pass each.
        var plaintexts = [[UInt8]](), inflated = [DayBody](), decoded = [ColumnarDay]()
        let openOnly = try Measure.times(runs: 1) {
            plaintexts = try decade.enumerated().map { index, entry in
                try SealedEnvelope.open(sealed[index], with: reading.privateKey, aad: .day(bucket: bucket, day: entry.0))
            }
        }
        let inflateOnly = try Measure.times(runs: 1) { inflated = try plaintexts.map { try DayBody.inflate($0, using: inflater) } }
        let decodeOnly = try Measure.times(runs: 1) {
            decoded = try inflated.compactMap { if case let .columnar(day) = try $0.decoded() { day } else { nil } }
        }
        let expandOnly = Measure.times(runs: 1) {
            for (index, day) in decoded.enumerated() {
                events.removeAll(keepingCapacity: true)
                MirrorSource.appendEvents(of: day, day: decade[index].0, to: &events)
            }
        }

        // Reference for size, measured here: the same events as the expanded NDJSON lines readers
        // print (the line format layout 2 replaced, less its record UUIDs), deflated and sealed alike.
        for (index, day) in decoded.enumerated() {
            tally.lineSealedBytes += try SealedEnvelope.seal(try deflater.compress(day.ndjson(day: nil)), to: reading.publicKey,
                                                             aad: .day(bucket: bucket, day: decade[index].0)).count
        }

        tally.days += decade.count
        tally.events += eventCount
        tally.sealedBytes += sealed.reduce(0) { $0 + $1.count }
        tally.bodyBytes += flatBodies.count
        tally.largest = max(tally.largest, sealed.map(\.count).max() ?? 0)
        tally.over256KiB += sealed.filter { $0.count > 256 * 1024 }.count
        tally.seal += sealTime.wall
        tally.floorSeal += floorSealTime.wall
        tally.open += openTime.wall
        tally.openColumns += columnsTime.wall
        tally.floorOpen += floorOpenTime.wall
        tally.cpu.seal += sealTime.cpu
        tally.cpu.floorSeal += floorSealTime.cpu
        tally.cpu.open += openTime.cpu
        tally.cpu.floorOpen += floorOpenTime.cpu
        tally.stages.open += openOnly.cpu
        tally.hpke.swift += swiftHPKE.cpu
        tally.hpke.floor += floorHPKE.cpu
        tally.stages.inflate += inflateOnly.cpu
        tally.stages.decode += decodeOnly.cpu
        tally.stages.expand += expandOnly.cpu
    }

    static func floorSealedBlobs(bodies: [[UInt8]], reading: ReadingKey) throws -> (flat: [UInt8], lengths: [Int]) {
        // Seal with the Swift envelope under the floor's fixed AAD, so the C open floor can open them.
        let deflater = try Deflater()
        var flat = [UInt8](), lengths = [Int]()
        let aadBucket = "abcdefghijklmnopqrstuvwxyz"
        for body in bodies {
            let blob = try SealedEnvelope.seal(try deflater.compress(body), to: reading.publicKey,
                                               aad: .day(bucket: aadBucket, day: CalendarDay(year: 2026, month: 8, day: 7)!))
            flat += blob
            lengths.append(blob.count)
        }
        return (flat, lengths)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
