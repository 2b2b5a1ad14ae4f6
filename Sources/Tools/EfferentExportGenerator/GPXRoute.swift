import Foundation

/// A workout's route file (§1.7): GPX 1.1 by "Apple Health Export", one point every 5 s along a
/// loop, times in UTC.
enum GPXRoute {
    static func bytes(for workout: DayPlan.Workout, exportInstant: Int64) -> [UInt8] {
        var out = TextBuffer(capacity: 64 * 1024)
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n  <metadata>\n    <time>")
        out.appendISODate(exportInstant)
        out.append("</time>\n  </metadata>\n  <trk>\n    <name>Route</name>\n    <trkseg>\n")
        let points = workout.duration / 5
        for point in 0...points {
            let angle = Double(point) / Double(max(points, 1)) * 2 * Double.pi
            let lat = Int64((48.8566 + 0.01 * sin(angle)) * 1_000_000)
            let lon = Int64((2.3522 + 0.015 * cos(angle)) * 1_000_000)
            out.append("      <trkpt lon=\"")
            out.appendDecimal(lon, scale: 6)
            out.append("\" lat=\"")
            out.appendDecimal(lat, scale: 6)
            out.append("\"><ele>")
            out.appendDecimal(Int64(35_000 + point % 40 * 100), scale: 3)
            out.append("</ele><time>")
            out.appendISODate(workout.start + Int64(point * 5))
            out.append("</time><extensions><speed>")
            out.appendDecimal(Int64(2_800 + point % 7 * 50), scale: 3)
            out.append("</speed><course>")
            out.appendDecimal(Int64(point * 1_000 % 360_000), scale: 3)
            out.append("</course><hAcc>2.5</hAcc><vAcc>1.8</vAcc></extensions></trkpt>\n")
        }
        out.append("    </trkseg>\n  </trk>\n</gpx>\n")
        return out.bytes
    }
}
