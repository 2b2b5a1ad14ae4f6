/// Where a streaming route's body goes as it arrives (decoded from gzip where the route takes
/// that): a parser fed chunk by chunk, so a body is never held whole. Throwing refuses the
/// request: the rest is read and dropped, and the error (if it is an `HTTPResponseError`) is the
/// answer once the body has ended.
public protocol HTTPBodySink: AnyObject {
    func take(_ bytes: [UInt8]) throws
}
