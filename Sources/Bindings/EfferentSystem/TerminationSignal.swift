import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT as an event rather than death, for servers that stop gracefully: once made,
/// either signal posts a semaphore and `wait()` returns.
///
/// The handler is installed with `sigaction` before `init` returns, so there is no moment when a
/// signal is neither the default (the process ends) nor heard: the dispatch source this replaces
/// set the signals to ignored first and was registered later, on libdispatch's own thread, and a
/// SIGTERM sent in between was lost (a server started and stopped at once never stopped).
public final class TerminationSignal: Sendable {
    /// Starts listening; from here on SIGTERM and SIGINT no longer end the process by themselves.
    public init() {
        // Made before the handler can run: the handler only reads it.
        let semaphore = terminationSemaphore
        _ = semaphore
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // sem_post is async-signal-safe; the pointer is a global set once, before this runs.
            sem_post(terminationSemaphore)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = Int32(SA_RESTART)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
    }

    /// Blocks until one of the signals arrives (never call it from a task: it holds its thread).
    public func wait() {
        while sem_wait(terminationSemaphore) != 0 && errno == EINTR {}
    }
}

/// The semaphore the signal handler posts: one per process, never freed.
nonisolated(unsafe) private let terminationSemaphore: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()
