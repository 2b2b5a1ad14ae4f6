import Foundation

/// A phone's backfill as the PulsHealth app sends it (Puls Sync Protocol v1 §8.2), made from a
/// seed: several types over many days, from a Watch and an iPhone that overlap, cut into
/// batches of one type each; plus the deletions HealthKit reports later. The same samples can be
/// written as an Apple Health export, so what a receiver builds can be compared with what an
/// import of the export builds.
public struct BackfillStream: Sendable {
    public struct Sample: Sendable {
        public let uuid: String
        public let type: String
        public let unit: String
        /// Unix seconds.
        public let start: Int64
        public let end: Int64
        public let value: Double
        public let watch: Bool
    }

    /// One batch: its ID, its type label and its NDJSON text.
    public struct Batch: Sendable {
        public let id: String
        public let type: String
        public let text: String
        public let samples: Int
    }

    public static let types = [("HKQuantityTypeIdentifierStepCount", "count"), ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal"),
                               ("HKQuantityTypeIdentifierDistanceWalkingRunning", "m"), ("HKQuantityTypeIdentifierHeartRate", "count/min")]

    public let samples: [Sample]
    /// UUIDs HealthKit later reports deleted.
    public let deleted: Set<String>

    /// `days` days from `first` (Unix seconds of a midnight UTC), `perHour` samples of each type
    /// an hour from each device, `deletedShare` of them deleted later.
    public init(seed: UInt64, first: Int64, days: Int, perHour: Int = 1, deletedShare: Double = 0.03) {
        var random = SplitMix64(seed: seed)
        var samples = [Sample]()
        var deleted = Set<String>()
        func uuid() -> String {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            let hex = bytes.map { String(format: "%02X", $0) }.joined()
            let chars = Array(hex)
            return "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-8\(String(chars[17..<20]))-\(String(chars[20..<32]))"
        }
        for day in 0..<days {
            for hour in 0..<24 {
                let base = first + Int64(day) * 86_400 + Int64(hour) * 3600
                for slot in 0..<perHour {
                    let offset = Int64(slot) * (3600 / Int64(perHour))
                    for (type, unit) in Self.types {
                        // The Watch and the iPhone both count steps and distance, over overlapping spans.
                        for watch in [true, false] where watch || type != "HKQuantityTypeIdentifierHeartRate" {
                            let start = base + offset + Int64.random(in: 0...300, using: &random) + (watch ? 0 : 120)
                            let instant = type == "HKQuantityTypeIdentifierHeartRate"
                            let end = instant ? start : start + Int64.random(in: 60...900, using: &random)
                            let value: Double = switch unit {
                            case "count": Double(Int.random(in: 20...900, using: &random))
                            case "kcal": Double(Int.random(in: 1...80, using: &random))
                            case "m": Double(Int.random(in: 10...700, using: &random))
                            default: Double(Int.random(in: 50...160, using: &random))
                            }
                            let sample = Sample(uuid: uuid(), type: type, unit: unit, start: start, end: end, value: value, watch: watch)
                            samples.append(sample)
                            if Double.random(in: 0..<1, using: &random) < deletedShare { deleted.insert(sample.uuid) }
                        }
                    }
                }
            }
        }
        self.samples = samples
        self.deleted = deleted
    }

    /// The samples of each type in batches of `size`, each type's batches in shuffled order (a
    /// backfill sends recent data first, then history, four types in parallel): by type.
    public func batches(size: Int, seed: UInt64) -> [String: [Batch]] {
        var random = SplitMix64(seed: seed)
        var byType = [String: [Batch]]()
        for (type, _) in Self.types {
            let ofType = samples.filter { $0.type == type }
            var batches = stride(from: 0, to: ofType.count, by: size).map { start in
                Self.batch(Array(ofType[start..<min(start + size, ofType.count)]), type: type)
            }
            batches.shuffle(using: &random)
            byType[type] = batches
        }
        return byType
    }

    /// Deletion batches for every deleted UUID, `size` tombstones each.
    public func deletionBatches(size: Int) -> [Batch] {
        let gone = samples.filter { deleted.contains($0.uuid) }
        return stride(from: 0, to: gone.count, by: size).map { start in
            let lines = gone[start..<min(start + size, gone.count)].map { PulsBatchText.deletion(uuid: $0.uuid.lowercased(), type: $0.type) }
            let id = UUID().uuidString
            return Batch(id: id, type: gone[start].type, text: PulsBatchText.batch(id: id, type: gone[start].type, reason: "incremental",
                                                                                    deletions: Array(lines)), samples: 0)
        }
    }

    static func batch(_ samples: [Sample], type: String) -> Batch {
        let id = UUID().uuidString
        let lines = samples.map { sample in
            PulsBatchText.quantity(uuid: sample.uuid, type: sample.type, start: Double(sample.start) * 1000, end: Double(sample.end) * 1000,
                                   value: sample.value, unit: sample.unit, source: sample.watch ? "Apple Watch" : "Anna's iPhone",
                                   device: sample.watch ? "Apple Watch" : "iPhone")
        }
        return Batch(id: id, type: type, text: PulsBatchText.batch(id: id, type: type, samples: lines), samples: samples.count)
    }

    /// The samples that were not deleted, as an Apple Health export (`export.xml`) writes them.
    public func exportXML() -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        func date(_ seconds: Int64) -> String { formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        for sample in samples where !deleted.contains(sample.uuid) {
            let source = sample.watch ? "Apple Watch" : "Anna&apos;s iPhone"
            let device = sample.watch ? "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1&gt;"
                : "&lt;&lt;HKDevice: 0x2&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2&gt;"
            text += " <Record type=\"\(sample.type)\" sourceName=\"\(source)\" sourceVersion=\"17.0\" "
                + "device=\"\(device)\" unit=\"\(sample.unit)\" creationDate=\"\(date(sample.end))\" startDate=\"\(date(sample.start))\" "
                + "endDate=\"\(date(sample.end))\" value=\"\(PulsBatchText.number(sample.value))\"/>\n"
        }
        return text + "</HealthData>\n"
    }
}
