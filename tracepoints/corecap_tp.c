/*
 * The probes of all four corecap providers, in one shared object
 * (libcorecap-tp.so). One object, because LTTng-UST refuses a provider
 * registered twice: the shim links this library, `corecap run --no-shim`
 * preloads it alone, and annotated daemons find it either way.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include <corecap/corecap_op_tp.h>
#include <corecap/corecap_lock_tp.h>
#include <corecap/corecap_io_tp.h>
#include <corecap/corecap_thread_tp.h>
