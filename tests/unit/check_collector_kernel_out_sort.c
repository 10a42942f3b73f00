/* collector/kernel/kernel_out_sort: a drain's records, each CPU's together
 * and in time order, as a stable sort by (CPU, time) would put them. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/kernel_format.h>
#include "kernel/kernel_out_sort.h"

#include "check_run.h"

/* A batch of n records of sizes 16 to 40 bytes, each marked by its place
 * (in the bytes after the header), with times and CPUs as `shape` says. */
enum shape { IN_ORDER, FEW_LATE, RANDOM_TIMES, BAD_CPUS };

static size_t make_batch(unsigned char *buf, size_t n, int nr_cpus, enum shape shape,
			 unsigned *seed)
{
	uint64_t now = 1000;
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		struct corecap_krec *h = (void *)(buf + len);
		uint16_t size = (uint16_t)(16 + 8 * (rand_r(seed) % 4));

		memset(h, 0, size);
		now += (uint64_t)(rand_r(seed) % 3);
		h->type = CORECAP_KREC_SWITCH;
		h->size = size;
		h->cpu = (uint32_t)(rand_r(seed) % (unsigned)(nr_cpus + (shape == BAD_CPUS)));
		h->time_ns = shape == RANDOM_TIMES ? (uint64_t)(rand_r(seed) % 100)
			     : shape == FEW_LATE && rand_r(seed) % 5 == 0 ? now - rand_r(seed) % 40
									  : now;
		if (size > 16)
			memcpy(buf + len + 16, &i, sizeof(i) < size - 16u ? sizeof(i) : size - 16u);
		len += size;
	}
	return len;
}

/* The reference: every record's place, sorted by (CPU, time, place). */
struct ref_pos {
	uint32_t cpu;
	uint64_t time_ns;
	size_t off, size;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref_pos *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void reference_sort(unsigned char *out, size_t len)
{
	struct ref_pos v[512];
	unsigned char *tmp = malloc(len ? len : 1);
	size_t n = 0, at = 0;

	for (size_t off = 0; off < len; off += ((struct corecap_krec *)(out + off))->size) {
		const struct corecap_krec *h = (const void *)(out + off);

		v[n++] = (struct ref_pos){h->cpu, h->time_ns, off, h->size};
	}
	qsort(v, n, sizeof(*v), cmp_ref);
	for (size_t i = 0; i < n; i++) {
		memcpy(tmp + at, out + v[i].off, v[i].size);
		at += v[i].size;
	}
	memcpy(out, tmp, len);
	free(tmp);
}

static void check_shape(enum shape shape)
{
	static unsigned char a[512 * 40], b[512 * 40];
	unsigned seed = 7u + (unsigned)shape;

	for (int t = 0; t < 3000; t++) {
		int nr_cpus = 1 + (int)(rand_r(&seed) % 4);
		size_t n = rand_r(&seed) % 400, len = make_batch(a, n, nr_cpus, shape, &seed);

		memcpy(b, a, len);
		corecap_kernel_out_sort(a, len, nr_cpus);
		reference_sort(b, len);
		ck_assert_msg(memcmp(a, b, len) == 0, "batch %d (%zu records, %d CPUs) differs", t,
			      n, nr_cpus);
	}
}

START_TEST(records_in_order_are_grouped_by_cpu_only)
{
	check_shape(IN_ORDER);
}
END_TEST

START_TEST(a_few_late_records_are_put_in_place)
{
	check_shape(FEW_LATE);
}
END_TEST

START_TEST(any_disorder_gives_the_stable_sort)
{
	check_shape(RANDOM_TIMES);
}
END_TEST

START_TEST(a_cpu_past_the_count_sorts_last)
{
	check_shape(BAD_CPUS);
}
END_TEST

START_TEST(one_cpu_in_order_is_left_as_it_is)
{
	static unsigned char a[64 * 40], b[64 * 40];
	unsigned seed = 3;
	size_t len = make_batch(a, 64, 1, IN_ORDER, &seed);

	memcpy(b, a, len);
	corecap_kernel_out_sort(a, len, 1);
	ck_assert(memcmp(a, b, len) == 0);
	corecap_kernel_out_sort(a, 0, 1);
	corecap_kernel_out_sort(a, ((struct corecap_krec *)a)->size, 1);
	ck_assert(memcmp(a, b, len) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collector/kernel_out_sort");
	TCase *tc = tcase_create("sort");

	tcase_add_test(tc, records_in_order_are_grouped_by_cpu_only);
	tcase_add_test(tc, a_few_late_records_are_put_in_place);
	tcase_add_test(tc, any_disorder_gives_the_stable_sort);
	tcase_add_test(tc, a_cpu_past_the_count_sorts_last);
	tcase_add_test(tc, one_cpu_in_order_is_left_as_it_is);
	suite_add_tcase(s, tc);
	return corecap_check_run(s);
}
