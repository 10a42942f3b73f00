/*
 * struct corecap_tp_format: one kernel tracepoint as tracefs describes it
 * (events/<system>/<event>/id and format), so that raw perf samples
 * (PERF_SAMPLE_RAW) are read at the offsets this kernel uses, never at
 * hard-coded ones.
 *
 * Guarantees after corecap_tp_format_parse() returns 0: `id` is the
 * event's id, fields[] holds every `field:` line of the format (common
 * fields included) with offset, size and signedness as given; names are
 * the last identifier of the declaration (`prev_pid` of `pid_t prev_pid`,
 * `comm` of `char comm[16]`). corecap_tp_field_read() reads integers of 1,
 * 2, 4 or 8 bytes, sign-extended when the field is signed, and fails
 * rather than read past the record.
 */
#ifndef CORECAP_COLLECTOR_TP_FORMAT_H
#define CORECAP_COLLECTOR_TP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORECAP_TRACEFS		     "/sys/kernel/tracing"
#define CORECAP_TP_FORMAT_MAX_FIELDS 32

struct corecap_tp_field {
	char name[64];
	uint32_t offset;
	uint32_t size;
	bool is_signed;
};

struct corecap_tp_format {
	char name[128]; /* "system:event" */
	uint32_t id;
	size_t n_fields;
	struct corecap_tp_field fields[CORECAP_TP_FORMAT_MAX_FIELDS];
};

/* Parses the text of a `format` file (its ID: line gives `id`). Returns
 * -EINVAL when it has no ID or no field. */
int corecap_tp_format_parse(struct corecap_tp_format *f, const char *text);
/* Reads tracefs/events/<system>/<event>/format; on failure leaves a
 * sentence naming the file and the cause in err. */
int corecap_tp_format_load(struct corecap_tp_format *f, const char *tracefs, const char *system,
			   const char *event, char *err, size_t err_size);
/* The field called name, or NULL. */
const struct corecap_tp_field *corecap_tp_format_field(const struct corecap_tp_format *f,
						       const char *name);
bool corecap_tp_field_read(const struct corecap_tp_field *fl, const void *raw, size_t raw_bytes,
			   int64_t *out);

#endif
