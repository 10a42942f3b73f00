/*
 * refosd: the reference daemon. main() parses the options, builds the
 * modules in dependency order (log, store, osd, finisher, shards,
 * messenger), waits for SIGTERM/SIGINT and tears them down in the order
 * that lets every queued op finish: messenger (no new ops), shards
 * (drain), finisher (replies), connections, log (flush). See
 * docs/refosd.md.
 *
 * This is the one file that defines the corecap_op tracepoints.
 */
#define CORECAP_ANNOTATE_DEFINE
#include <corecap/annotate.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "burn.h"
#include "finisher.h"
#include "log.h"
#include "messenger.h"
#include "options.h"
#include "osd.h"
#include "shards.h"
#include "store.h"

struct refosd {
	struct osd_options opts;
	struct log log;
	struct store store;
	struct osd osd;
	struct finisher finisher;
	struct shards shards;
	struct messenger msgr;
};

static int write_pidfile(const char *path)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, buf, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int main(int argc, char **argv)
{
	static struct refosd d;
	char err[256];
	sigset_t sigs;
	int sig = 0, r, status = 1;

	osd_options_init(&d.opts);
	if (osd_options_parse(&d.opts, argc, argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "refosd: %s\n", err);
		osd_options_usage(stderr);
		return 2;
	}
	if (d.opts.help) {
		osd_options_usage(stdout);
		return 0;
	}

	/* Every thread inherits this mask; only main() takes the signals, with sigwait(). */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = log_init(&d.log, d.opts.log_file, (int)d.opts.debug, 0);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot open log file '%s': %s\n", d.opts.log_file,
			strerror(-r));
		goto out;
	}
	if (d.opts.store_dir)
		r = store_init_dir(&d.store, d.opts.store_dir, d.opts.fsync);
	else
		r = store_init_mem(&d.store);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot open store '%s': %s\n",
			d.opts.store_dir ? d.opts.store_dir : "mem", strerror(-r));
		goto out_log;
	}
	burn_calibrate();
	d.log.cpu_us = d.opts.log_cpu_us;
	finisher_init(&d.finisher, &d.log);
	d.finisher.cpu_us = d.opts.finisher_cpu_us;
	r = osd_init(&d.osd, d.opts.pgs, d.opts.big_lock, d.opts.op_cpu_us, &d.store, &d.log,
		     &d.finisher);
	if (r == 0)
		r = shards_init(&d.shards, d.opts.shards, d.opts.threads_per_shard, osd_handle_op,
				&d.osd);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot set up the op queues: %s\n", strerror(-r));
		goto out_osd;
	}
	r = messenger_init(&d.msgr, d.opts.msgr_threads, &d.shards, d.opts.pgs, &d.log);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot set up the messenger: %s\n", strerror(-r));
		goto out_msgr;
	}
	d.msgr.cpu_us = d.opts.msgr_cpu_us;
	r = messenger_bind(&d.msgr, d.opts.port);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot listen on 127.0.0.1:%u: %s\n", d.opts.port,
			strerror(-r));
		goto out_msgr;
	}
	if (d.opts.pidfile) {
		r = write_pidfile(d.opts.pidfile);
		if (r < 0) {
			fprintf(stderr, "refosd: cannot write pidfile '%s': %s\n", d.opts.pidfile,
				strerror(-r));
			goto out_msgr;
		}
	}

	r = log_start(&d.log);
	if (r == 0)
		r = finisher_start(&d.finisher);
	if (r == 0)
		r = shards_start(&d.shards);
	if (r == 0)
		r = messenger_start(&d.msgr);
	if (r < 0) {
		fprintf(stderr, "refosd: cannot start threads: %s\n", strerror(-r));
		goto out_stop;
	}
	/* Level 0, always written; outside any op, but bracketed like every log call. */
	corecap_log_enter();
	log_submitf(&d.log, 0, "osd",
		    "refosd %s pid %d listening on 127.0.0.1:%u msgr-threads %u shards %u "
		    "threads-per-shard %u pgs %u store %s%s debug %u big-lock %s op-cpu-us %u",
		    CORECAP_VERSION, (int)getpid(), d.msgr.port, d.opts.msgr_threads, d.opts.shards,
		    d.opts.threads_per_shard, d.opts.pgs, d.opts.store_dir ? "dir:" : "mem",
		    d.opts.store_dir ? d.opts.store_dir : "", d.opts.debug,
		    d.opts.big_lock ? "on" : "off", d.opts.op_cpu_us);
	corecap_log_exit();
	printf("refosd: listening on 127.0.0.1:%u\n", d.msgr.port);
	fflush(stdout);

	while (sigwait(&sigs, &sig) != 0)
		;
	fprintf(stderr, "refosd: caught %s, shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	status = 0;

out_stop:
	messenger_stop(&d.msgr);
	shards_stop(&d.shards);
	finisher_stop(&d.finisher);
	corecap_log_enter();
	log_submitf(&d.log, 0, "osd",
		    "refosd stopped: %" PRIuFAST64 " ops done, %" PRIu64 " replies sent, %" PRIu64
		    " dropped, %" PRIuFAST64 " malformed frames",
		    atomic_load(&d.osd.ops_done), d.finisher.replies_sent,
		    d.finisher.replies_dropped, atomic_load(&d.msgr.frames_refused));
	corecap_log_exit();
	if (d.opts.big_lock)
		fprintf(stderr, "refosd: the big lock was held %" PRIuFAST64 " ns in %" PRIuFAST64 " holds\n",
			atomic_load(&d.osd.big_lock_held_ns), atomic_load(&d.osd.big_lock_holds));
	if (log_stop(&d.log) < 0)
		status = 1;
	if (d.opts.pidfile)
		unlink(d.opts.pidfile);
out_msgr:
	messenger_release(&d.msgr);
	shards_release(&d.shards);
out_osd:
	finisher_release(&d.finisher);
	osd_release(&d.osd);
	store_release(&d.store);
out_log:
	log_release(&d.log);
out:
	return status;
}
