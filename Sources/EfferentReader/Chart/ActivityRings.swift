import Foundation

/// Move, exercise and stand as three rings, each filled by the day's value against its goal (a
/// ring past its goal is full; the number beside it says by how much).
public struct ActivityRings: Sendable {
    public struct Ring: Sendable, Equatable {
        public let key: String
        public let value: Double?
        public let goal: Double?

        public init(key: String, value: Double?, goal: Double?) {
            self.key = key
            self.value = value
            self.goal = goal
        }

        /// Value over goal, nil when either is missing.
        public var fraction: Double? {
            guard let value, let goal, goal > 0 else { return nil }
            return value / goal
        }
    }

    public let title: String
    public let rings: [Ring]

    public init(title: String, rings: [Ring]) {
        self.title = title
        self.rings = rings
    }

    public func svg(size: Int = 150) -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart rings\" viewBox=\"0 0 \(size) \(size)\" role=\"img\" "
            + "aria-label=\"\(SVGText.escape(title))\">\n"
        let centre = Double(size) / 2
        for (index, ring) in rings.enumerated() {
            let radius = centre - 8 - Double(index) * 15
            guard radius > 6 else { break }
            out += "<circle class=\"c-ring-track\" cx=\"\(SVGText.number(centre))\" cy=\"\(SVGText.number(centre))\" r=\"\(SVGText.number(radius))\"/>"
            guard let fraction = ring.fraction, fraction > 0 else { continue }
            // An arc from twelve o'clock, clockwise; a full ring is drawn as a circle.
            if fraction >= 0.999 {
                out += "<circle class=\"c-ring ring-\(SVGText.escape(ring.key))\" cx=\"\(SVGText.number(centre))\" cy=\"\(SVGText.number(centre))\" r=\"\(SVGText.number(radius))\"/>"
                continue
            }
            let angle = fraction * 2 * .pi
            let endX = centre + radius * sin(angle), endY = centre - radius * cos(angle)
            out += "<path class=\"c-ring ring-\(SVGText.escape(ring.key))\" d=\"M\(SVGText.number(centre)) \(SVGText.number(centre - radius))"
                + "A\(SVGText.number(radius)) \(SVGText.number(radius)) 0 \(fraction > 0.5 ? 1 : 0) 1 \(SVGText.number(endX)) \(SVGText.number(endY))\"/>"
        }
        return out + "</svg>\n"
    }
}
