// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: how a scenario reports a failure.
 *
 * Everything the harness finds wrong goes through nk_fail(), which fails
 * the case and counts the failure, so that a case that runs many
 * scenarios (netfs_random, netfs_alloc_failure) can tell which of them
 * failed without touching the case's status.
 */

#include <kunit/test.h>

#include "harness.h"

static atomic_t nk_nr_failures = ATOMIC_INIT(0);

/**
 * nk_fail - fail the case with a message
 * @env: the environment
 * @fmt: printf format of the message
 *
 * Every failure of a scenario is reported here, so that it is counted
 * (nk_failures()).  Does nothing once the case has ended (an environment
 * left behind).
 */
void nk_fail(struct nk_env *env, const char *fmt, ...)
{
	struct kunit *test = READ_ONCE(env->test);
	char msg[160];
	va_list args;

	if (!test)
		return;
	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	atomic_inc(&nk_nr_failures);
	KUNIT_FAIL(test, "%s", msg);
}

/**
 * nk_failures - how many failures the harness has reported so far
 *
 * For a case that runs many scenarios and counts those that failed: the
 * count before and after a scenario differ if it failed.  Cases run one
 * at a time, and the fakes never report, so nothing else moves it.
 *
 * Return: the number of nk_fail() reports since boot.
 */
unsigned int nk_failures(void)
{
	return atomic_read(&nk_nr_failures);
}
