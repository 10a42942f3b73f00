/*
 * asok_client: one command to a Ceph daemon's admin socket. The client
 * sends a JSON command ({"prefix": "..."}) and a '\0'; the daemon answers
 * a 4-byte big-endian length and that many bytes (at most
 * CORECAP_ASOK_REPLY_MAX taken). Used by ceph_asok (the window's files),
 * optracker_drain (the history's slices) and stop_watchdog (the settings
 * put back).
 */
#ifndef CORECAP_COLLECTOR_ASOK_CLIENT_H
#define CORECAP_COLLECTOR_ASOK_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#define CORECAP_ASOK_REPLY_MAX (256u << 20)

/* One command to the socket at path; *out (malloc'd, NUL-terminated) the reply, its length
 * into *len_out (may be NULL). 0 or -errno (-EMSGSIZE past CORECAP_ASOK_REPLY_MAX). */
int corecap_asok_command(const char *path, const char *cmd, char **out, size_t *len_out);
/* `config set VAR VAL`; 0, or -errno (-EINVAL: refused), with warn said naming the socket. */
int corecap_asok_config_set(const char *path, const char *var, const char *val, bool warn);

#endif
