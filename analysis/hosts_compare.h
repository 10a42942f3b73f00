/*
 * hosts_compare: `corecap compare RUN_A RUN_B` of two runs of several hosts
 * (docs/hosts.md): the system's answer first, each run's limit (the host
 * with the least headroom, as `corecap report RUN` says it) and what
 * changed between them (the limiting host, its headroom, the system's
 * ops/s), then per host present in both, matched by name, the comparison
 * of its two runs exactly as `corecap compare A:NAME B:NAME` prints it
 * (compare_diff.h, compare_render.h), and the hosts present in one run
 * only, named. JSON: docs/report-json.md, "corecap compare --json of two
 * runs of several hosts".
 */
#ifndef CORECAP_HOSTS_COMPARE_H
#define CORECAP_HOSTS_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "compare_render.h"
#include "pass/report_build.h"

/*
 * Which of run[0] (A) and run[1] (B) are runs of several hosts: 0 neither,
 * 1 both; one of them only: -EINVAL, said (which is which, and how to name
 * one host's run: RUN:NAME).
 */
int corecap_hosts_compare_kinds(const char *const run[2]);
enum hosts_compare_format { HOSTS_COMPARE_TEXT, HOSTS_COMPARE_JSON, HOSTS_COMPARE_HTML };
/*
 * Compares two runs of several hosts, each host's report built with ro,
 * as text, JSON or an HTML page to out (the page ends with fl, the whole
 * runs' differential flame graph; NULL: none): 0, or a negative errno
 * (said).
 */
int corecap_hosts_compare(const char *const run[2], const char *symfs, const struct report_opts *ro,
			  enum hosts_compare_format format, const struct compare_html_flame *fl,
			  FILE *out);

#endif
