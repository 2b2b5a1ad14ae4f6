/// NDJSON of any day, layout 2 expanded and layout 1 passed through (protocol §3.2, §3.3).
extension DecodedDay {
    /// The day as NDJSON: layout 2 expanded, layout-1 lines passed through unchanged (§3.2
    /// rule 1). With `day`, every line gains `"day":"YYYY-MM-DD"`; a layout-1 line is then
    /// re-written compact with sorted keys, and one that is not a JSON object is refused.
    public func ndjson(day: CalendarDay? = nil) throws(DayBodyError) -> [UInt8] {
        switch self {
        case let .columnar(columnar):
            return columnar.ndjson(day: day)
        case let .lines(lines):
            var out = [UInt8]()
            guard let day else {
                for line in lines { out.append(contentsOf: line.utf8); out.append(0x0A) }
                return out
            }
            for var members in try lineObjects() {
                members["day"] = .string(day.description)
                do { out.append(contentsOf: try JSONValue.object(members).canonicalBytes()) } catch { throw .malformedJSON(error) }
                out.append(0x0A)
            }
            return out
        }
    }

    /// The layout-1 lines parsed, each a JSON object (§3.3); no objects for a layout-2 day,
    /// whose events `ColumnarDay.expandedEvents()` gives.
    public func lineObjects() throws(DayBodyError) -> [[String: JSONValue]] {
        guard case let .lines(lines) = self else { return [] }
        var objects = [[String: JSONValue]]()
        objects.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            let parsed: JSONValue
            do { parsed = try JSONParser.parse(line) } catch { throw .malformedJSON(error) }
            guard let members = parsed.objectValue else { throw .lineNotObject(line: index + 1) }
            objects.append(members)
        }
        return objects
    }
}
