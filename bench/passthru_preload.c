/*
 * passthru_preload: an LD_PRELOAD library that interposes the pthread
 * mutex and rwlock calls the shim interposes and does nothing but call
 * glibc's own. Preloaded in place of the shim (CORECAP_PRELOAD_LIB for
 * `corecap run`, which adds LTTng-UST's fork helper and so LTTng-UST
 * itself), it measures what interposing alone costs a daemon: the extra
 * call through the PLT into another library and back, and the presence
 * of LTTng-UST, without any of the shim's bookkeeping. A benchmark tool
 * (docs/ceph.md, "The shim's cost in write IOPS"), not part of corecap.
 *
 * glibc's implementations are reached through their GLIBC_2.2.5 aliases,
 * as the shim's bootstrap does (preload/libc_225.h): no dlsym at all.
 */
#include "libc_225.h"

#define PASS_THROUGH(name, type)                                                                   \
	__attribute__((visibility("default"))) int pthread_##name(type *l)                         \
	{                                                                                          \
		return libc_##name##_225(l);                                                       \
	}
CORECAP_LIBC_225(PASS_THROUGH)
