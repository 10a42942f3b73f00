/*
 * The kernel source's record writer: records of events.bin
 * (corecap/kernel_format.h) reserved whole in an output buffer and
 * written with one write(2) per drain pass, so that a killed collector
 * leaves a file readable up to its last record; the files' headers.
 */
#ifndef CORECAP_COLLECTOR_KERNEL_WRITER_H
#define CORECAP_COLLECTOR_KERNEL_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corecap_kernel_events;

/* A zeroed record of `size` bytes with its header filled in, in the
 * output buffer; NULL when memory runs short. */
void *kernel_out_reserve(struct corecap_kernel_events *k, uint16_t type, uint16_t size,
			 uint32_t cpu, uint64_t time_ns);
/* Writes the buffered records to events.bin (write_error when not whole). */
void kernel_out_flush(struct corecap_kernel_events *k);
void kernel_out_release(struct corecap_kernel_events *k);
/* 0 or -errno. */
int kernel_write_all(int fd, const void *buf, size_t len);
/* A TRACK record of thread tid, with its name. */
void kernel_track(struct corecap_kernel_events *k, pid_t tid, uint32_t reason);
int kernel_write_file_header(int fd, uint64_t magic, const struct corecap_kernel_events *k,
			     uint32_t stack_user_bytes);
/* sched_switch's prev_state as its letter; *preempted from its 0x100 bit. */
char kernel_state_char(int64_t state, bool *preempted);
/* HOLDER records of the threads met (again: of every one renamed). */
void kernel_name_holders(struct corecap_kernel_events *k, bool again);

#endif
