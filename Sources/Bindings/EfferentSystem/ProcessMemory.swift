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

    /// Has every block of 256 KiB or more mapped on its own and unmapped when freed. glibc
    /// otherwise raises that threshold after each large free (up to 32 MiB) and serves later large
    /// blocks from the arena of the thread asking, whose free top `malloc_trim` does not give
    /// back: sixteen bombs refused at once on sixteen worker threads left the receiver 37 MB of
    /// anonymous memory above its start (issue 33). Servers call it once at start.
    public static func mapLargeBlocks() {
        efferent_malloc_map_large(256 * 1024)
    }
}
