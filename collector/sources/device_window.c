#include "device_window.h"

#include <string.h>

static void take(struct corecap_device_window *w, int at)
{
	for (size_t i = 0; i < w->n; i++) {
		struct corecap_window_device *d = &w->dev[i];

		d->has_disk[at] =
			corecap_diskstats_read(d->id.major, d->id.minor, &d->disk[at]) == 0;
		d->has_limit[at] =
			corecap_io_limit_read(w->pid, d->id.major, d->id.minor, &d->limit[at]) == 0;
	}
}

void corecap_device_window_begin(struct corecap_device_window *w, pid_t pid)
{
	struct corecap_disk_id ids[CORECAP_DEVICES_MAX];
	int n = corecap_daemon_disks(pid, ids, CORECAP_DEVICES_MAX);

	memset(w, 0, sizeof(*w));
	w->pid = pid;
	for (int i = 0; i < n; i++)
		w->dev[w->n++].id = ids[i];
	take(w, 0);
}

void corecap_device_window_end(struct corecap_device_window *w)
{
	take(w, 1);
}
