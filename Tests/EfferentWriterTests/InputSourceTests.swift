import EfferentHTTP
import EfferentTestSupport
import EfferentReceiver
import Foundation
import Testing
@testable import EfferentWriter

/// One reader per input format, fed from any source of bytes: the same PulsHealth parser reads a
/// file for `efferent import` and a gzip request body as a receiver takes it, and hands over the
/// same records.
@Suite struct InputSourceTests {
    /// The receiver's side of the seam: a request body fed to an input reader as it arrives.
    final class ReaderBody: HTTPBodySink {
        let reader: any InputReader
        init(_ reader: any InputReader) { self.reader = reader }
        func take(_ bytes: [UInt8]) throws { try reader.feed(bytes) }
    }

    /// A route that reads PulsHealth batches straight from the request body into `collected`.
    static func receiver(_ collected: CollectingSink) -> Router {
        let router = Router()
        router.on("POST", "/v1/batches", body: BodyLimit(bytes: 1 << 20, gzip: .init(inflatedBytes: 8 << 20)),
                  sink: { _, _ in ReaderBody(PulsHealthReader(sink: collected, label: "request")) }) { _, _, body in
            try body.reader.finish()
            return HTTPResponse(status: 200, body: Array("{\"accepted\":\(body.reader.recordCount)}".utf8))
        }
        return router
    }

    @Test(arguments: [false, true])
    func aRequestBodyReadsAsTheFileDoes(overLoopback: Bool) throws {
        let files = ["01-quantity-category.ndjson", "02-workout-route-series.ndjson"].map { ExportFixtures.sample("pulshealth-ndjson/" + $0) }
        for file in files {
            let imported = CollectingSink()
            let tally = try ExportImporter.read(file, into: imported, lineFormats: [PulsHealthReader.format])
            #expect(tally.records > 0)

            let received = CollectingSink()
            let router = Self.receiver(received)
            let body = try gzipped(Array(try Data(contentsOf: file)))
            let status: Int
            if overLoopback {
                let daemon = try HTTPDaemon(configuration: .init(port: 0), responder: router.responder())
                defer { daemon.stop() }
                let connection = try RawHTTPConnection(port: daemon.port)
                connection.send(Array("POST /v1/batches HTTP/1.1\r\nHost: t\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
                status = try connection.readResponse().status
            } else {
                status = router.responder().respond(to: HTTPRequest(method: "POST", target: "/v1/batches", headers: ["Content-Encoding": "gzip"], body: body)).status
            }
            #expect(status == 200)
            #expect(received.records == imported.records, "\(file.lastPathComponent): the same records from the body as from the file")
        }
    }

    /// Every format reads through one protocol from a source of bytes.
    @Test func everyFormatIsAnInputReader() throws {
        let sink = CollectingSink()
        let readers: [any InputReader] = [HealthExportReader(sink: sink, label: "x"), EfferentEventReader(sink: sink, label: "x"),
                                          PulsHealthReader(sink: sink, label: "x"), GPXRouteInput(file: "workout-routes/x.gpx", sink: sink)]
        #expect(readers.count == 4)
        let xml = ExportFixtures.sample("apple-health-parser/export.xml")
        let reader = HealthExportReader(sink: sink, label: "export.xml")
        try reader.read(from: try FileChunks(url: xml, chunkSize: 7))
        #expect(reader.recordCount > 0 && sink.records.count == reader.recordCount)
    }
}


