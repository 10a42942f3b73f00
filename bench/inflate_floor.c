/*
 * inflate_floor: the CPU that inflating an ELF file's compressed sections
 * costs, and nothing else: the floor under any reader of that file's
 * DWARF that needs the sections whole (libdw inflates a SHF_COMPRESSED
 * section whole the first time it is read). For each compressed section
 * (ELFCOMPRESS_ZLIB, or the older .zdebug_* "ZLIB" form) of each file, or
 * only those named with -s, it prints the compressed and inflated sizes
 * and the process CPU time of inflating it with zlib into one buffer, then
 * the total. bench/report_symbols.sh measures it beside the cold report.
 *
 * usage: inflate_floor [-s SECTION]... FILE...
 * Exit status: 0, 1 when a file cannot be read or a section does not
 * inflate, 2 usage.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <getopt.h>
#include <unistd.h>
#include <zlib.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Inflates in[0..in_len) into a fresh buffer of out_len bytes: 0 or -1. */
static int inflate_all(const unsigned char *in, size_t in_len, size_t out_len)
{
	unsigned char *out = malloc(out_len ? out_len : 1);
	z_stream z = {0};
	int ret = -1;

	if (!out || inflateInit(&z) != Z_OK) {
		free(out);
		return -1;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)in_len;
	z.next_out = out;
	z.avail_out = (uInt)out_len;
	/* Sections past 4 GiB are not expected of a debug file here. */
	if (in_len == z.avail_in && out_len == z.avail_out &&
	    inflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out == out_len)
		ret = 0;
	inflateEnd(&z);
	free(out);
	return ret;
}

static int wanted(const char *name, int n, char **names)
{
	if (n == 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

struct totals {
	double cpu_s;
	uint64_t in, out;
	int sections;
};

/* One file's compressed sections (names[0..n): only those, n 0: all) inflated: 0 or 1. */
static int floor_of(const char *path, int n, char **names, struct totals *t)
{
	const unsigned char *m;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *strtab;
	struct stat st;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh)) {
		fprintf(stderr, "inflate_floor: cannot read '%s': %s\n", path,
			fd < 0 ? strerror(errno) : "too small");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "inflate_floor: cannot map '%s': %s\n", path, strerror(errno));
		return 1;
	}
	eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)eh->e_shnum * sizeof(*sh) > (uint64_t)st.st_size - eh->e_shoff ||
	    eh->e_shstrndx >= eh->e_shnum) {
		fprintf(stderr, "inflate_floor: '%s' is not a 64-bit ELF file\n", path);
		munmap((void *)m, (size_t)st.st_size);
		return 1;
	}
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset > (uint64_t)st.st_size) {
		fprintf(stderr, "inflate_floor: '%s': bad section names\n", path);
		munmap((void *)m, (size_t)st.st_size);
		return 1;
	}
	strtab = (const char *)m + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *name = strtab + sh[i].sh_name;
		const unsigned char *data = m + sh[i].sh_offset;
		uint64_t size = sh[i].sh_size, out_len;
		size_t hdr;
		double t0, dt;

		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset > (uint64_t)st.st_size ||
		    size > (uint64_t)st.st_size - sh[i].sh_offset || !wanted(name, n, names))
			continue;
		if (sh[i].sh_flags & SHF_COMPRESSED) {
			const Elf64_Chdr *ch = (const Elf64_Chdr *)data;

			if (size < sizeof(*ch) || ch->ch_type != ELFCOMPRESS_ZLIB)
				continue;
			out_len = ch->ch_size;
			hdr = sizeof(*ch);
		} else if (strncmp(name, ".zdebug", 7) == 0 && size >= 12 &&
			   memcmp(data, "ZLIB", 4) == 0) {
			out_len = 0;
			for (int k = 4; k < 12; k++)
				out_len = out_len << 8 | data[k];
			hdr = 12;
		} else {
			continue;
		}
		t0 = cpu_s();
		if (inflate_all(data + hdr, size - hdr, out_len)) {
			fprintf(stderr, "inflate_floor: '%s': section %s does not inflate\n", path,
				name);
			ret = 1;
			continue;
		}
		dt = cpu_s() - t0;
		printf("%-20s %12llu -> %12llu bytes  %7.3f s CPU  %s\n", name,
		       (unsigned long long)size, (unsigned long long)out_len, dt, path);
		t->cpu_s += dt;
		t->in += size;
		t->out += out_len;
		t->sections++;
	}
	munmap((void *)m, (size_t)st.st_size);
	return ret;
}

int main(int argc, char **argv)
{
	char **names = calloc((size_t)argc, sizeof(*names));
	struct totals t = {0};
	int n = 0, o, ret = 0;

	while ((o = getopt(argc, argv, "s:")) != -1) {
		if (o != 's' || !names) {
			fprintf(stderr, "usage: %s [-s SECTION]... FILE...\n", argv[0]);
			return 2;
		}
		names[n++] = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s [-s SECTION]... FILE...\n", argv[0]);
		return 2;
	}
	for (int i = optind; i < argc; i++)
		ret |= floor_of(argv[i], n, names, &t);
	printf("total %d sections %12llu -> %12llu bytes  %7.3f s CPU\n", t.sections,
	       (unsigned long long)t.in, (unsigned long long)t.out, t.cpu_s);
	free(names);
	return ret;
}
