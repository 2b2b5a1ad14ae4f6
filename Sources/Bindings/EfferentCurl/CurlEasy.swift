internal import CCurl
import Foundation

/// One libcurl easy handle (https://curl.se/libcurl/c/curl_easy_init.html), cleaned up in `deinit`.
/// One owner at a time: `CurlSession` hands it to one exchange and takes it back.
final class CurlEasy: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init?() {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Back to defaults, keeping the connection cache (https://curl.se/libcurl/c/curl_easy_reset.html).
    func reset() { curl_easy_reset(handle) }

    func perform(_ exchange: CurlExchange, cancel: CurlCancellation) throws(CurlFailure) -> CurlAnswer {
        let state = TransferState(limit: exchange.maxAnswerBytes, cancel: cancel)
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        // "Expect:" removed: libcurl would otherwise wait for a 100 Continue before large bodies.
        for line in exchange.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            guard let appended = curl_slist_append(list, line) else { throw .other(code: -1, message: "out of memory") }
            list = appended
        }
        let context = Unmanaged.passUnretained(state).toOpaque()
        var codes = [CURLcode]()
        codes.append(efferent_curl_set_string(handle, CURLOPT_URL, exchange.url))
        codes.append(efferent_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        codes.append(efferent_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(exchange.connectTimeout * 1000)))
        codes.append(efferent_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(exchange.deadline * 1000)))
        // A connection that moves less than 1 KiB/s for `stallSeconds` is as good as gone.
        codes.append(efferent_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1024))
        codes.append(efferent_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, exchange.stallSeconds))
        codes.append(efferent_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(exchange.maxAnswerBytes)))
        codes.append(efferent_curl_set_list(handle, CURLOPT_HTTPHEADER, list))
        if let caFile = exchange.caFile { codes.append(efferent_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
        codes.append(efferent_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWrite))
        codes.append(efferent_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        codes.append(efferent_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeader))
        codes.append(efferent_curl_set_pointer(handle, CURLOPT_HEADERDATA, context))
        codes.append(efferent_curl_set_long(handle, CURLOPT_NOPROGRESS, 0))
        codes.append(efferent_curl_set_progress_callback(handle, curlProgress))
        codes.append(efferent_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context))
        switch exchange.method {
        case "GET": codes.append(efferent_curl_set_long(handle, CURLOPT_HTTPGET, 1))
        case "HEAD": codes.append(efferent_curl_set_long(handle, CURLOPT_NOBODY, 1))
        default:
            codes.append(efferent_curl_set_long(handle, CURLOPT_POST, 1))
            codes.append(efferent_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(exchange.body.count)))
            codes.append(exchange.body.withUnsafeBytes { raw in
                // COPYPOSTFIELDS copies the bytes, so the buffer need not outlive this call.
                efferent_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            })
            if exchange.method != "POST" { codes.append(efferent_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, exchange.method)) }
        }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw .other(code: Int(failed.rawValue), message: String(cString: curl_easy_strerror(failed)))
        }
        let result = curl_easy_perform(handle)
        if result != CURLE_OK { throw failure(result, state: state, exchange: exchange) }
        var status = 0
        guard efferent_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK, status >= 100 else {
            throw .other(code: -1, message: "no HTTP status")
        }
        return CurlAnswer(status: status, headers: state.headers, body: state.body)
    }

    private func failure(_ code: CURLcode, state: TransferState, exchange: CurlExchange) -> CurlFailure {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_CONNECT: return .refused
        case CURLE_COULDNT_RESOLVE_HOST: return .unresolved
        case CURLE_OPERATION_TIMEDOUT:
            // No connect time means the deadline ran out before a connection stood.
            var connectMicroseconds: curl_off_t = 0
            _ = efferent_curl_get_offset(handle, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
            return connectMicroseconds == 0 ? .connectTimedOut(seconds: exchange.connectTimeout) : .timedOut(seconds: exchange.deadline)
        case CURLE_FILESIZE_EXCEEDED: return .answerTooLarge(limit: exchange.maxAnswerBytes)
        case CURLE_WRITE_ERROR where state.overflowed: return .answerTooLarge(limit: exchange.maxAnswerBytes)
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_USE_SSL_FAILED:
            return .tls(message)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE: return .dropped(message)
        default: return .other(code: Int(code.rawValue), message: message)
        }
    }
}

/// What one exchange gathers: the body within its ceiling, the headers, the caller's cancellation.
final class TransferState {
    let limit: Int
    let cancel: CurlCancellation
    var body = [UInt8]()
    var headers = [String: String]()
    var overflowed = false

    init(limit: Int, cancel: CurlCancellation) {
        self.limit = limit
        self.cancel = cancel
    }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard state.body.count + length <= state.limit else {
        // Answering fewer bytes than given makes libcurl stop with CURLE_WRITE_ERROR.
        state.overflowed = true
        return 0
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
    return length
}

private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        // A new status line (after a 100 Continue, say): the headers start over.
        state.headers.removeAll()
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        state.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return length
}

private func curlProgress(_ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue().cancel.isCancelled ? 1 : 0
}
