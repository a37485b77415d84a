// libpq's declarations, imported into Swift as the CPostgres module for its types and constants.
// Nothing links libpq: CPostgresShim loads it on first use. C targets that need libpq include this
// file (not <libpq-fe.h>) so that its declarations stay owned by this module.
#include <postgresql/libpq-fe.h>
