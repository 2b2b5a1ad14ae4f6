// libmicrohttpd. MHD_start_daemon is variadic and the client address is a union member holding a
// sockaddr: both are wrapped here so Swift calls plain functions.
#pragma once
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <microhttpd.h>

typedef void *(*efferent_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);
typedef void (*efferent_connection_callback)(void *cls, struct MHD_Connection *connection, void **socket_context,
                                             enum MHD_ConnectionNotificationCode code);

// Starts a daemon polling its connections with epoll on `thread_pool_size` threads (the handlers
// run elsewhere, on the binding's workers, while their connection is suspended), the limits
// Efferent sets, and TLS when a key and a certificate are given (PEM text). A `listen_fd` of -1
// (MHD_INVALID_SOCKET, libmicrohttpd's own default) has it bind `address` itself; another is a
// socket already bound and listening, which it serves instead (and closes when stopped).
static inline struct MHD_Daemon *efferent_mhd_start(
    unsigned int flags, const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, efferent_uri_log_callback uri_log,
    efferent_connection_callback connections,
    unsigned int connection_limit, unsigned int timeout_seconds, unsigned int per_ip_limit,
    size_t connection_memory, unsigned int thread_pool_size, const char *tls_key, const char *tls_cert,
    int listen_fd)
{
    if (tls_key != NULL && tls_cert != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, handler_cls,
            MHD_OPTION_SOCK_ADDR, address,
            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
            MHD_OPTION_NOTIFY_COMPLETED, completed, handler_cls,
            MHD_OPTION_URI_LOG_CALLBACK, uri_log, handler_cls,
            MHD_OPTION_NOTIFY_CONNECTION, connections, handler_cls,
            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
            MHD_OPTION_HTTPS_MEM_KEY, tls_key,
            MHD_OPTION_HTTPS_MEM_CERT, tls_cert,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handler_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, handler_cls,
        MHD_OPTION_NOTIFY_CONNECTION, connections, handler_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_END);
}

// The connection's socket, or -1.
static inline int efferent_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// What the connection-notify callback stored for this connection, or NULL.
static inline void *efferent_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// The numeric address of the connection's peer, written into buffer ("" when unknown).
static inline void efferent_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, size);
    }
}

// The port the daemon listens on (useful after binding port 0).
static inline unsigned int efferent_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#include <sys/resource.h>

// Raises this process's soft limit on open files to its hard limit (each connection is a
// descriptor) and returns the soft limit now in force.
static inline unsigned long efferent_raise_open_files(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    return limit.rlim_cur == RLIM_INFINITY ? (unsigned long)1 << 20 : (unsigned long)limit.rlim_cur;
}
