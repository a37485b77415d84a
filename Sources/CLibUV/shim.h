#include <uv.h>

#ifdef __GLIBC__
// malloc_trim, for EventLoop's HeapTrim: Glibc's Swift module leaves malloc.h out.
#include <malloc.h>
#endif
