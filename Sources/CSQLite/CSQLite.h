// SQLite's declarations, imported into Swift as the CSQLite module for its types and constants.
// Nothing links libsqlite3: CSQLiteShim loads it on first use. C targets that need SQLite include
// this file (not <sqlite3.h>) so that SQLite's declarations stay owned by this module.
#include <sqlite3.h>
