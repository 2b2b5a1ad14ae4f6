import EfferentTestSupport
import Foundation

/// A workout's route file (§1.7): GPX 1.1 by "Apple Health Export", a fix a second along a loop —
/// two in every tenth second, as Core Location sometimes delivers — times in UTC.
enum GPXRoute {
    /// The seconds of the route, each with how many fixes fall in it.
    static func seconds(for workout: DayPlan.Workout) -> [(offset: Int, fixes: Int)] {
        (0...workout.duration).map { ($0, $0 % 10 == 7 ? 2 : 1) }
    }

    /// How many `trkpt`s the route holds.
    static func fixCount(for workout: DayPlan.Workout) -> Int { seconds(for: workout).reduce(0) { $0 + $1.fixes } }

    static func bytes(for workout: DayPlan.Workout, exportInstant: Int64) -> [UInt8] {
        var out = TextBuffer(capacity: 64 * 1024)
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n  <metadata>\n    <time>")
        out.appendISODate(exportInstant)
        out.append("</time>\n  </metadata>\n  <trk>\n    <name>Route</name>\n    <trkseg>\n")
        // GPS wanders by a few decimetres from fix to fix: the last digits are noise, as in real files.
        var noise = SplitMix64(seed: UInt64(bitPattern: workout.start))
        var point = 0
        for (offset, fixes) in seconds(for: workout) {
            for _ in 0..<fixes {
                let angle = Double(point) / Double(max(workout.duration, 1)) * 2 * Double.pi
                let lat = Int64((48.8566 + 0.01 * sin(angle)) * 1_000_000) + Int64(noise.int(-3...3))
                let lon = Int64((2.3522 + 0.015 * cos(angle)) * 1_000_000) + Int64(noise.int(-3...3))
                out.append("      <trkpt lon=\"")
                out.appendDecimal(lon, scale: 6)
                out.append("\" lat=\"")
                out.appendDecimal(lat, scale: 6)
                out.append("\"><ele>")
                out.appendDecimal(Int64(35_000 + point % 40 * 100) * 1000 + Int64(noise.int(0...999)), scale: 6)
                out.append("</ele><time>")
                out.appendISODate(workout.start + Int64(offset))
                out.append("</time><extensions><speed>")
                out.appendDecimal(Int64(2_800_000 + noise.int(0...400_000)), scale: 6)
                out.append("</speed><course>")
                out.appendDecimal(Int64(point * 1_000 % 360_000) * 1000 + Int64(noise.int(0...999)), scale: 6)
                out.append("</course><hAcc>")
                out.appendDecimal(Int64(noise.int(1_500_000...9_000_000)), scale: 6)
                out.append("</hAcc><vAcc>")
                out.appendDecimal(Int64(noise.int(1_000_000...6_000_000)), scale: 6)
                out.append("</vAcc></extensions></trkpt>\n")
                point += 1
            }
        }
        out.append("    </trkseg>\n  </trk>\n</gpx>\n")
        return out.bytes
    }
}
