/*
 * struct corecap_proc_stat: the fields corecap uses from /proc/PID/stat or
 * /proc/PID/task/TID/stat. The parser copes with a comm holding blanks or
 * parentheses (it splits at the last ')').
 */
#ifndef CORECAP_COLLECTOR_PROC_STAT_H
#define CORECAP_COLLECTOR_PROC_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CORECAP_PF_KTHREAD 0x00200000UL /* stat field 9: the task is a kernel thread */

struct corecap_proc_stat {
	char comm[64];
	char state;
	unsigned long flags;
	uint64_t utime_ticks;
	uint64_t stime_ticks;
	uint64_t starttime_ticks;
	int processor;
};

/* 0 on success, -EINVAL when the text is not a stat line. */
int corecap_proc_stat_parse(const char *text, struct corecap_proc_stat *st);
/* Reads and parses a stat file relative to dirfd (AT_FDCWD for an absolute path). */
int corecap_proc_stat_read(int dirfd, const char *path, struct corecap_proc_stat *st);
/*
 * The machine's busy CPU time so far, in seconds: /proc/stat's first line,
 * user + nice + system + irq + softirq + steal (idle and iowait left out);
 * and, if steal_s is not NULL, the steal alone: the time the hypervisor
 * ran something else while a vCPU of this machine wanted to run. -errno
 * when it cannot be read.
 */
int corecap_machine_busy_s(double *busy_s, double *steal_s);
/* Reads a small file fully into buf (NUL-terminated); returns its length or -errno. */
ssize_t corecap_read_small_file(int dirfd, const char *path, char *buf, size_t size);
/* The same from an open descriptor, from its offset 0 whatever the
 * descriptor's own (pread): a /proc file kept open is formatted afresh at
 * each read from 0, so one open serves every sample. */
ssize_t corecap_pread_small_file(int fd, char *buf, size_t size);
/* A comm file (/proc/PID/comm, /proc/PID/task/TID/comm) into comm, its
 * newline dropped, NUL-padded (at most 15 characters); false, comm all
 * NUL, when it cannot be read. */
bool corecap_read_comm(const char *path, char comm[16]);
/*
 * Whether one of PID's open descriptors links to a target (as
 * /proc/PID/fd shows it) that match() accepts; that target into link.
 */
bool corecap_proc_fd_find(pid_t pid, bool (*match)(const char *target, const void *ctx),
			  const void *ctx, char *link, size_t size);
/*
 * Calls fn for each process /proc lists but the caller, with its pid and a
 * descriptor of its /proc directory (O_DIRECTORY | O_NOFOLLOW, closed when
 * fn returns; it keeps naming that process, not a later one given the
 * pid), until fn returns true. 0 when the walk ended, -errno when /proc
 * cannot be listed.
 */
int corecap_proc_each(bool (*fn)(pid_t pid, int dirfd, void *ctx), void *ctx);
/* Whether the process of /proc directory dirfd is named comm (its comm
 * file, the newline dropped). */
bool corecap_proc_comm_is(int dirfd, const char *comm);

#endif
