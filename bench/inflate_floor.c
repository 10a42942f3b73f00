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
 * -p SECTION=BYTES inflates only the first BYTES of that section's
 * inflated contents (the prefix that a reader must inflate to reach a byte
 * there, since a zlib stream cannot be entered in the middle: the last
 * needed bytes bench/dwarf_prefix finds); sections named by -p are the
 * only ones inflated. -d inflates with libdeflate instead of zlib (whole
 * sections only: it needs the whole output buffer; built only when
 * libdeflate-dev is installed, -d is refused otherwise).
 *
 * usage: inflate_floor [-d] [-s SECTION]... [-p SECTION=BYTES]... FILE...
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
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

static int use_libdeflate;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Inflates the first out_len bytes of the zlib stream in[0..in_len) (whose
 * whole inflated length is full_len) into a fresh buffer of out_len bytes:
 * 0 or -1.
 */
static int inflate_all(const unsigned char *in, size_t in_len, size_t out_len, size_t full_len)
{
	unsigned char *out = malloc(out_len ? out_len : 1);
	z_stream z = {0};
	int ret = -1, zr;

	if (!out)
		return -1;
	if (use_libdeflate) {
#ifdef HAVE_LIBDEFLATE
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		size_t got = 0;

		if (d && out_len == full_len &&
		    libdeflate_zlib_decompress(d, in, in_len, out, out_len, &got) ==
			    LIBDEFLATE_SUCCESS &&
		    got == out_len)
			ret = 0;
		libdeflate_free_decompressor(d);
#endif
		free(out);
		return ret;
	}
	if (inflateInit(&z) != Z_OK) {
		free(out);
		return -1;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)in_len;
	z.next_out = out;
	z.avail_out = (uInt)out_len;
	/* Sections past 4 GiB are not expected of a debug file here. */
	if (in_len == z.avail_in && out_len == z.avail_out) {
		zr = inflate(&z, out_len == full_len ? Z_FINISH : Z_NO_FLUSH);
		if (z.total_out == out_len &&
		    (zr == Z_STREAM_END || (out_len < full_len && (zr == Z_OK || zr == Z_BUF_ERROR))))
			ret = 0;
	}
	inflateEnd(&z);
	free(out);
	return ret;
}

/* -p's prefixes: the section names and their lengths. */
static int n_prefix;
static char **prefix_name;
static uint64_t *prefix_len;

/* The bytes of section name to inflate, of out_len: all, or its -p prefix. */
static uint64_t prefix_of(const char *name, uint64_t out_len)
{
	for (int i = 0; i < n_prefix; i++)
		if (strcmp(name, prefix_name[i]) == 0)
			return prefix_len[i] < out_len ? prefix_len[i] : out_len;
	return out_len;
}

static int wanted(const char *name, int n, char **names)
{
	for (int i = 0; i < n_prefix; i++)
		if (strcmp(name, prefix_name[i]) == 0)
			return 1;
	if (n == 0)
		return n_prefix == 0;
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
		uint64_t size = sh[i].sh_size, out_len, want;
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
		want = prefix_of(name, out_len);
		t0 = cpu_s();
		if (inflate_all(data + hdr, size - hdr, want, out_len)) {
			fprintf(stderr, "inflate_floor: '%s': section %s does not inflate\n", path,
				name);
			ret = 1;
			continue;
		}
		dt = cpu_s() - t0;
		printf("%-20s %12llu -> %12llu bytes", name, (unsigned long long)size,
		       (unsigned long long)out_len);
		if (want < out_len)
			printf(" (first %llu, %.1f%%)", (unsigned long long)want,
			       100.0 * (double)want / (double)out_len);
		printf("  %7.3f s CPU  %s\n", dt, path);
		t->cpu_s += dt;
		t->in += size;
		t->out += want;
		t->sections++;
	}
	munmap((void *)m, (size_t)st.st_size);
	return ret;
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: %s [-d] [-s SECTION]... [-p SECTION=BYTES]... FILE...\n";
	char **names = calloc((size_t)argc, sizeof(*names));
	struct totals t = {0};
	int n = 0, o, ret = 0;

	prefix_name = calloc((size_t)argc, sizeof(*prefix_name));
	prefix_len = calloc((size_t)argc, sizeof(*prefix_len));
	if (!names || !prefix_name || !prefix_len)
		return 1;
	while ((o = getopt(argc, argv, "ds:p:")) != -1) {
		char *eq, *end;

		if (o == 's') {
			names[n++] = optarg;
		} else if (o == 'p' && (eq = strrchr(optarg, '=')) && eq != optarg) {
			*eq = '\0';
			errno = 0;
			prefix_len[n_prefix] = strtoull(eq + 1, &end, 10);
			if (errno || end == eq + 1 || *end) {
				fprintf(stderr, usage, argv[0]);
				return 2;
			}
			prefix_name[n_prefix++] = optarg;
		} else if (o == 'd') {
#ifndef HAVE_LIBDEFLATE
			fprintf(stderr, "inflate_floor: built without libdeflate (-d)\n");
			return 2;
#endif
			use_libdeflate = 1;
		} else {
			fprintf(stderr, usage, argv[0]);
			return 2;
		}
	}
	if (optind >= argc || (use_libdeflate && n_prefix)) {
		fprintf(stderr, usage, argv[0]);
		return 2;
	}
	for (int i = optind; i < argc; i++)
		ret |= floor_of(argv[i], n, names, &t);
	printf("total %d sections %12llu -> %12llu bytes  %7.3f s CPU%s\n", t.sections,
	       (unsigned long long)t.in, (unsigned long long)t.out, t.cpu_s,
	       use_libdeflate ? " (libdeflate)" : "");
	free(names);
	free(prefix_name);
	free(prefix_len);
	return ret;
}
