#ifndef CPRIMESIEVESHIM_H
#define CPRIMESIEVESHIM_H

// libprimesieve, loaded when the first nth prime is computed.
//
// It is not linked: loading it at start-up (it reads the CPU's cache sizes from /sys as it
// loads) cost every run about a millisecond, though most runs compute no prime.
// cprimesieve_load opens it with dlopen instead and resolves the functions below into a table;
// Swift calls them through the wrappers declared here. A direct call of a primesieve function
// would not link, which keeps any from slipping in.
//
// primesieve's header is not included here: Swift needs none of its declarations, and the
// wrappers' types are plain integers.
#include <stdint.h>

/// Loads libprimesieve and sets it to one thread per call, once per process, on whichever thread
/// comes first. Returns NULL when primesieve is ready, else why it cannot be used, naming the
/// library and quoting dlerror; the answer never changes. Nothing else declared here may be
/// called before it returned NULL.
const char *cprimesieve_load(void);

// The primesieve functions Swift calls, as FUNCTION(result, name, parameters, arguments). Each
// gets a table entry of primesieve's own type and a wrapper named c<name>
// (cprimesieve_nth_prime for primesieve_nth_prime).
#define CPRIMESIEVE_FUNCTIONS(FUNCTION)                                                            \
  FUNCTION(uint64_t, primesieve_nth_prime, (int64_t n, uint64_t start), (n, start))                \
  FUNCTION(uint64_t, primesieve_count_primes, (uint64_t start, uint64_t stop), (start, stop))

#define CPRIMESIEVE_DECLARE(result, name, parameters, arguments) result c##name parameters;
CPRIMESIEVE_FUNCTIONS(CPRIMESIEVE_DECLARE)
#undef CPRIMESIEVE_DECLARE

#endif
