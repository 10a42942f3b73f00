/*
 * dwarf_prefix: how far into each DWARF section of a debug file a reader
 * must go to symbolize a given set of addresses, i.e. the prefix of each
 * compressed section that must be inflated (a zlib stream cannot be
 * entered in the middle). Addresses (the file's own virtual addresses,
 * hex, one a line) come on stdin: for the report's, the keys of the
 * symbol-cache file a cold `corecap report` left for the binary.
 *
 * For each address it finds the compile unit (dwarf_addrdie, which uses
 * .debug_aranges), the units its inline chain reaches (abstract origins,
 * specifications), and for every unit needed: its end in .debug_info, its
 * abbreviation table's start in .debug_abbrev, its line program's end in
 * .debug_line, and, over every attribute of every DIE of the unit (an
 * upper bound on what a reader of the unit touches), the largest offset
 * into .debug_str (DW_FORM_strp), .debug_rnglists (DW_AT_ranges) and
 * .debug_loclists (location lists). It prints per section the section's
 * size and the last needed byte (an offset: a list or string there runs a
 * few bytes further), which `inflate_floor -p SECTION=BYTES` then times.
 * The abbreviation table's end is taken as the next unit's table start.
 *
 * usage: dwarf_prefix DEBUG_FILE < ADDRESSES
 * Exit status: 0, 1 when the file has no DWARF, 2 usage.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_UNITS 65536

struct unit {
	Dwarf_Off off, end, abbrev, line, die;
	int needed;
};

static void max_of(uint64_t *m, uint64_t v)
{
	if (v > *m)
		*m = v;
}

struct prefix {
	uint64_t info, abbrev, line, line_end, str, ranges, locs;
	uint64_t str_names; /* the names of the inline chains alone */
	int addrs, found, units;
};

static struct unit units[MAX_UNITS];
static size_t n_units;

static struct unit *unit_at(Dwarf_Off off)
{
	size_t lo = 0, hi = n_units;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (units[mid].end <= off)
			lo = mid + 1;
		else if (units[mid].off > off)
			hi = mid;
		else
			return &units[mid];
	}
	return NULL;
}


/* The .debug_str offset of die's attribute at, if a DW_FORM_strp, into *m. */
static void name_str(Dwarf_Die *die, unsigned int at, uint64_t *m)
{
	Dwarf_Attribute a;
	uint32_t o;

	if (dwarf_attr(die, at, &a) && dwarf_whatform(&a) == DW_FORM_strp) {
		memcpy(&o, a.valp, sizeof(o)); /* 32-bit DWARF: the offset as stored */
		max_of(m, o);
	}
}

/* Marks the unit of die needed, and of its origins; the strings of their
 * names into *names. */
static void need_die(Dwarf_Die *die, uint64_t *names)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	struct unit *u;

	for (int depth = 0; die && depth < 16; depth++) {
		if ((u = unit_at(dwarf_dieoffset(die))))
			u->needed = 1;
		name_str(die, DW_AT_name, names);
		name_str(die, DW_AT_linkage_name, names);
		name_str(die, DW_AT_comp_dir, names);
		if (dwarf_attr(die, DW_AT_abstract_origin, &a) ||
		    dwarf_attr(die, DW_AT_specification, &a)) {
			if (!dwarf_formref_die(&a, &o))
				return;
			die = &o;
		} else {
			return;
		}
	}
}

static int attr_max(Dwarf_Attribute *a, void *arg)
{
	struct prefix *p = arg;
	unsigned int form = dwarf_whatform(a), at = dwarf_whatattr(a);
	Dwarf_Word w;

	if (form == DW_FORM_strp) {
		uint32_t o;

		memcpy(&o, a->valp, sizeof(o)); /* 32-bit DWARF: the offset as stored */
		max_of(&p->str, o);
	} else if (form == DW_FORM_sec_offset && dwarf_formudata(a, &w) == 0) {
		if (at == DW_AT_ranges)
			max_of(&p->ranges, w);
		else if (at == DW_AT_location || at == DW_AT_frame_base ||
			 at == DW_AT_data_member_location || at == DW_AT_GNU_locviews)
			max_of(&p->locs, w);
	}
	return DWARF_CB_OK;
}

static void walk(Dwarf_Die *die, struct prefix *p)
{
	Dwarf_Die child;

	dwarf_getattrs(die, attr_max, p, 0);
	if (dwarf_child(die, &child) == 0)
		do
			walk(&child, p);
		while (dwarf_siblingof(&child, &child) == 0);
}

int main(int argc, char **argv)
{
	struct prefix p = {0};
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Off abbrev;
	char line[128];
	Dwarf *dw;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEBUG_FILE < ADDRESSES\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(dw = dwarf_begin(fd, DWARF_C_READ))) {
		fprintf(stderr, "dwarf_prefix: '%s': %s\n", argv[1],
			fd < 0 ? strerror(errno) : dwarf_errmsg(-1));
		return 1;
	}
	while (n_units < MAX_UNITS &&
	       dwarf_nextcu(dw, off, &next, &hsize, &abbrev, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute a;
		Dwarf_Word w = UINT64_MAX;

		units[n_units] = (struct unit){.off = off, .end = next, .abbrev = abbrev, .die = off + hsize};
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_attr(&cu, DW_AT_stmt_list, &a))
			dwarf_formudata(&a, &w);
		units[n_units++].line = w;
		off = next;
	}
	while (fgets(line, sizeof(line), stdin)) {
		Dwarf_Addr pc = strtoull(line, NULL, 16);
		Dwarf_Die cu, *scopes = NULL;
		int n;

		p.addrs++;
		if (!dwarf_addrdie(dw, pc, &cu))
			continue;
		p.found++;
		need_die(&cu, &p.str_names);
		n = dwarf_getscopes(&cu, pc, &scopes);
		for (int i = 0; i < n; i++)
			need_die(&scopes[i], &p.str_names);
		free(scopes);
	}
	for (size_t i = 0; i < n_units; i++) {
		Dwarf_Die cu;
		uint64_t line_next = UINT64_MAX;

		if (!units[i].needed)
			continue;
		p.units++;
		max_of(&p.info, units[i].end);
		/* the next table after this unit's: the end of what it reads */
		for (size_t j = 0; j < n_units; j++)
			if (units[j].abbrev > units[i].abbrev && units[j].abbrev < line_next)
				line_next = units[j].abbrev;
		max_of(&p.abbrev, line_next == UINT64_MAX ? units[i].abbrev : line_next);
		if (units[i].line != UINT64_MAX) {
			uint64_t lnext = UINT64_MAX;

			max_of(&p.line, units[i].line);
			for (size_t j = 0; j < n_units; j++)
				if (units[j].line != UINT64_MAX && units[j].line > units[i].line &&
				    units[j].line < lnext)
					lnext = units[j].line;
			if (lnext != UINT64_MAX)
				max_of(&p.line_end, lnext);
		}
		if (dwarf_offdie(dw, units[i].die, &cu))
			walk(&cu, &p);
	}
	printf("addresses %d, in a unit %d; units needed %d of %zu\n", p.addrs, p.found, p.units,
	       n_units);
	printf(".debug_info      %12" PRIu64 "  (the last needed unit's end)\n", p.info);
	printf("  needed units' ends (MB):");
	for (size_t i = 0; i < n_units; i++)
		if (units[i].needed)
			printf(" %.1f", (double)units[i].end / 1e6);
	printf("\n");
	printf(".debug_abbrev    %12" PRIu64 "  (the next table after the last needed)\n", p.abbrev);
	printf(".debug_line      %12" PRIu64 "  (the next program after the last needed; %" PRIu64
	       " its start)\n",
	       p.line_end, p.line);
	printf(".debug_str       %12" PRIu64 "  (the last string a needed unit names; %" PRIu64
	       " of the inline chains' names alone)\n",
	       p.str, p.str_names);
	printf(".debug_rnglists  %12" PRIu64 "  (the last range list a needed unit names)\n",
	       p.ranges);
	printf(".debug_loclists  %12" PRIu64 "  (the last location list a needed unit names)\n",
	       p.locs);
	dwarf_end(dw);
	close(fd);
	return 0;
}
