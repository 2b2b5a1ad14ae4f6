import Foundation

/// A workout's route as a path on a plain background — no map tiles, so it draws with no
/// network — in a flat projection that keeps shapes true at a route's scale (longitude shrunk by
/// the cosine of the mean latitude), with its start and end marked and a scale bar.
public struct RouteMap: Sendable {
    public let title: String
    /// Latitude and longitude in degrees, in order.
    public let points: [(latitude: Double, longitude: Double)]

    public init(title: String, points: [(latitude: Double, longitude: Double)]) {
        self.title = title
        self.points = points
    }

    static let metresPerDegree = 111_320.0

    public func svg(width: Int = 600, height: Int = 400, standalone: Bool = false) -> String {
        let renderer = ChartRenderer(width: width, height: height, standalone: standalone)
        var out = renderer.open(Chart(title: title, unit: DisplayUnit(symbol: ""), style: .bars, domain: .days(since: .init(unixSeconds: 0), count: 1), bins: []))
        guard points.count >= 2 else {
            return out + "<text class=\"c-empty\" x=\"\(width / 2)\" y=\"\(height / 2)\" text-anchor=\"middle\">No route recorded</text>\n</svg>\n"
        }
        let meanLatitude = points.map(\.latitude).reduce(0, +) / Double(points.count)
        let squeeze = cos(meanLatitude * .pi / 180)
        let xs = points.map { $0.longitude * squeeze }, ys = points.map { -$0.latitude }
        let (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        let pad = 16.0, top = standalone ? 36.0 : pad
        let availableWidth = Double(width) - 2 * pad, availableHeight = Double(height) - top - pad - 18
        let scale = min(availableWidth / max(maxX - minX, 1e-9), availableHeight / max(maxY - minY, 1e-9))
        let offsetX = pad + (availableWidth - (maxX - minX) * scale) / 2, offsetY = top + (availableHeight - (maxY - minY) * scale) / 2
        func at(_ index: Int) -> (Double, Double) { (offsetX + (xs[index] - minX) * scale, offsetY + (ys[index] - minY) * scale) }
        // At most two points a pixel of width: a second-by-second route has thousands more than show.
        let stride = max(1, points.count / (2 * width))
        var indices = Array(Swift.stride(from: 0, to: points.count, by: stride))
        if indices.last != points.count - 1 { indices.append(points.count - 1) }
        var path = ""
        for (n, index) in indices.enumerated() {
            let (x, y) = at(index)
            path += (n == 0 ? "M" : "L") + SVGText.number(x) + " " + SVGText.number(y)
        }
        out += "<g class=\"c-data\"><path class=\"c-route\" d=\"\(path)\"/>"
        let (startX, startY) = at(0), (endX, endY) = at(points.count - 1)
        out += "<circle class=\"c-route-start\" cx=\"\(SVGText.number(startX))\" cy=\"\(SVGText.number(startY))\" r=\"5\"><title>start</title></circle>"
        out += "<circle class=\"c-route-end\" cx=\"\(SVGText.number(endX))\" cy=\"\(SVGText.number(endY))\" r=\"5\"><title>end</title></circle></g>\n"
        // A scale bar of a round distance about a fifth of the width.
        let metresPerPixel = Self.metresPerDegree / scale
        let wanted = metresPerPixel * Double(width) / 5
        let magnitude = pow(10, log10(max(wanted, 1)).rounded(.down))
        let metres = ([1.0, 2, 5, 10].last { $0 * magnitude <= wanted } ?? 1) * magnitude
        let length = metres / metresPerPixel
        let baseY = Double(height) - pad + 2
        out += "<g class=\"c-scale\"><line class=\"c-axis\" x1=\"\(SVGText.number(pad))\" x2=\"\(SVGText.number(pad + length))\" y1=\"\(SVGText.number(baseY))\" y2=\"\(SVGText.number(baseY))\"/>"
        out += "<text x=\"\(SVGText.number(pad + length + 6))\" y=\"\(SVGText.number(baseY + 4))\">"
            + (metres >= 1000 ? DisplayUnit.number(metres / 1000, decimals: 0) + " km" : DisplayUnit.number(metres, decimals: 0) + " m") + "</text></g>\n"
        return out + "</svg>\n"
    }
}
