@testable import EfferentPostgres
import Foundation
import Testing

/// A PostgreSQL warning goes to the operator's log as one JSON line, whatever its text holds.
@Suite struct PostgresWarningLineTests {
    @Test func aWarningIsOneLineOfJSONThatReadsBackToItsText() throws {
        let message = "first line\nsecond \"quoted\" C:\\path\ttab\r\u{1}\u{1F}\u{7F} café ✓"
        let line = PostgresConnection.warningLine(message)
        #expect(line.hasSuffix("}\n") && line.dropLast().firstIndex(of: "\n") == nil, "one line: \(line)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(parsed == ["level": "warning", "postgres": message])
    }
}
