/*
 * record_signals: how `corecap record` (one daemon, or the parent of
 * several: record_multi.h) takes its signals. SIGINT, SIGTERM and SIGHUP
 * set corecap_record_got_signal (the first one's number) and, when a
 * process sent them rather than the terminal, corecap_record_forward_signal;
 * a third one exits at once (the kernel detaches our tracees). Every
 * signal, SIGCHLD included (ptrace stops too), writes to a self-pipe whose
 * read end, corecap_record_wake_fd(), the one loop polls. Job control is
 * ignored: a stopped collector would hold the daemon.
 */
#ifndef CORECAP_COLLECTOR_RECORD_SIGNALS_H
#define CORECAP_COLLECTOR_RECORD_SIGNALS_H

#include <signal.h>

extern volatile sig_atomic_t corecap_record_got_signal;
extern volatile sig_atomic_t corecap_record_forward_signal; /* sent by a process */

/* 0, or -errno (said). */
int corecap_record_signals_install(void);
void corecap_record_signals_restore(void);
int corecap_record_wake_fd(void);
/* Empties the self-pipe after poll() said it is readable. */
void corecap_record_signals_drain(void);

#endif
