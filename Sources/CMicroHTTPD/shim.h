// libmicrohttpd. MHD_start_daemon is variadic: the service issue adds the wrapper it needs.
#pragma once
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
