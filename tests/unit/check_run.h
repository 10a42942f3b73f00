/*
 * check_run.h: the end of every suite's main(): runs the Check suite and
 * gives the process's exit status (failure when any test failed).
 */
#ifndef CORECAP_CHECK_RUN_H
#define CORECAP_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int corecap_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
