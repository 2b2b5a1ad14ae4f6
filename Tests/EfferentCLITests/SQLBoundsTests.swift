import EfferentTestSupport
import Foundation
import Testing

/// `efferent sql` bounded whole (issue 45): a statement that asks SQLite for more memory than the
/// process allows (20 values of 60 MB in one row reached 1.68 GB before) is stopped with a
/// sentence and exit 1, as the real binary runs it; and the bound leaves ordinary queries alone.
@Suite struct SQLBoundsTests {
    @Test func aStatementPastTheMemoryBoundIsStoppedWithASentence() throws {
        let work = NSTemporaryDirectory() + "efferent-sqlbounds-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (_, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        let values = (0..<20).map { _ in "randomblob(60000000)" }.joined(separator: ", ")
        let heavy = try reader.run(["sql", "--offline", "SELECT \(values)"])
        #expect(heavy.status == 1, "\(heavy.stderr)")
        #expect(heavy.stderr.contains("needed more than 512 MiB of memory and was stopped"), "\(heavy.stderr)")
        let printf = try reader.run(["sql", "--offline", "SELECT printf('%.*c', 1000000000, 'x')"])
        #expect(printf.status == 1 && printf.stderr.contains("made a value over 64 MiB"), "\(printf.stderr)")
        let counted = try reader.run(["sql", "--offline", "--format", "csv", "SELECT count(*) > 0 AS held FROM daily"])
        #expect(counted.status == 0 && counted.stdout.split(whereSeparator: \.isNewline) == ["held", "1"], "\(counted.stdout) \(counted.stderr)")
    }
}
