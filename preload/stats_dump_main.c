/* corecap-stats-dump: the stand-alone name of `corecap stats-dump` (corecap/stats_dump.h). */
#include <corecap/stats_dump.h>

int main(int argc, char **argv)
{
	return corecap_stats_dump_main(argc, argv);
}
