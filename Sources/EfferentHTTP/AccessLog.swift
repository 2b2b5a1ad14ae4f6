import EfferentCore
import Foundation

/// One JSON line per request: time, method, route pattern, status, bytes in and out, milliseconds
/// and client. Never a path (it names the archive), a header (keys, signatures, tokens) or a body.
public enum AccessLog {
    static func line(method: String, route: String, status: Int, bytesIn: Int, bytesOut: Int, started: Date, client: String) -> String {
        let finished = Date()
        let ms = (finished.timeIntervalSince(started) * 1000 * 100).rounded() / 100
        return "{\"t\":\"\(ISOTime.milliseconds(Int64(finished.timeIntervalSince1970 * 1000)))\",\"method\":\(jsonString(method)),"
            + "\"route\":\"\(route)\",\"status\":\(status),\"in\":\(bytesIn),\"out\":\(bytesOut),\"ms\":\(ms),"
            + "\"client\":\(jsonString(client))}"
    }

    /// `text` as a JSON string, quotes included.
    public static func jsonString(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
