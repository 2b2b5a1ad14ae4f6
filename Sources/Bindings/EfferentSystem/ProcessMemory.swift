internal import CSystem

/// The process's heap as the C library keeps it.
public enum ProcessMemory {
    /// Gives the heap's free pages back to the system (glibc's `malloc_trim(0)`,
    /// https://man7.org/linux/man-pages/man3/malloc_trim.3.html). glibc keeps what a burst of
    /// requests freed in its arenas, so a server refused a flood of large bodies would otherwise
    /// stay at its peak size; call it after such a refusal. Does nothing where there is no glibc.
    public static func returnFreedPages() {
        _ = efferent_malloc_trim()
    }
}
