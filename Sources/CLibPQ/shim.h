// libpq, PostgreSQL's C client (https://www.postgresql.org/docs/current/libpq.html).
#pragma once
#include <libpq-fe.h>
