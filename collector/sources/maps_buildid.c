#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "maps_buildid.h"
#include "util/run_dir.h"
#include <corecap/run_format.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static int note_build_id(Elf_Data *data, char *hex, size_t size)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz * 2 + 1 > size)
			return -ENOSPC;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		return 0;
	}
	return -ENOENT;
}

int corecap_elf_build_id(int fd, char *hex, size_t size)
{
	size_t phnum = 0;
	int ret = -ENOENT;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum) != 0) {
		ret = -EINVAL;
		goto out_end;
	}
	/* Program headers first: what the loader mapped is what the daemon runs. */
	for (size_t i = 0; i < phnum && ret == -ENOENT; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data)
			ret = note_build_id(data, hex, size);
	}
	if (ret == -ENOENT) {
		Elf_Scn *scn = NULL;

		while (ret == -ENOENT && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			data = elf_getdata(scn, NULL);
			if (data)
				ret = note_build_id(data, hex, size);
		}
	}
out_end:
	elf_end(elf);
	return ret;
}

static int copy_maps(struct corecap_maps_buildid *mb, pid_t pid, struct corecap_run_dir *rd,
		     char **text)
{
	size_t cap = 1 << 16, len = 0;
	char path[64];
	char *buf;
	int in, out;
	ssize_t n;
	int ret;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		corecap_error("cannot read the memory maps of PID %d: %s", (int)pid,
			      strerror(errno));
		goto out_free;
	}
	for (;;) {
		if (len + 4096 > cap) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				ret = -ENOMEM;
				goto out_close_in;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(in, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			corecap_error("cannot read the memory maps of PID %d: %s", (int)pid,
				      strerror(errno));
			goto out_close_in;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	ret = corecap_run_dir_create_file(rd, CORECAP_RUN_MAPS, &out);
	if (ret < 0)
		goto out_close_in;
	ret = corecap_write_all(out, buf, len);
	if (ret < 0)
		corecap_error("cannot write '%s/" CORECAP_RUN_MAPS "': %s", rd->path,
			      strerror(-ret));
	if (close(out) < 0 && ret == 0) {
		ret = -errno;
		corecap_error("cannot write '%s/" CORECAP_RUN_MAPS "': %s", rd->path,
			      strerror(errno));
	}
	mb->maps_bytes = len;
out_close_in:
	close(in);
out_free:
	if (ret < 0)
		free(buf);
	else
		*text = buf;
	return ret;
}

/* The pathname field of a maps line (the 6th), or NULL. */
static const char *maps_path(char *line)
{
	char *p = line;

	for (int field = 0; field < 5; field++) {
		p = strchr(p, ' ');
		if (!p)
			return NULL;
		p += strspn(p, " ");
	}
	return *p == '/' ? p : NULL;
}

/*
 * RUN/vdso.so: the image of the target's [vdso] mapping, read from
 * /proc/PID/mem at the range its maps line gives (as perf keeps it in its
 * build-id cache), so the analysis names vDSO frames on any machine. Not
 * fatal: without it the analysis falls back on its own machine's vDSO.
 */
static void save_vdso(struct corecap_maps_buildid *mb, pid_t pid, struct corecap_run_dir *rd,
		      const char *maps_text)
{
	const char *line = strstr(maps_text, " [vdso]\n");
	unsigned long long start, end;
	char path[64], *image;
	ssize_t n;
	int in, out, ret;

	if (!line)
		return; /* no vDSO mapped (vdso=0) */
	while (line > maps_text && line[-1] != '\n')
		line--;
	if (sscanf(line, "%llx-%llx", &start, &end) != 2 || end <= start ||
	    end - start > CORECAP_VDSO_MAX_BYTES)
		return;
	image = malloc(end - start);
	if (!image)
		return;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	in = open(path, O_RDONLY | O_CLOEXEC);
	n = in < 0 ? -1 : pread(in, image, end - start, (off_t)start);
	if (in >= 0)
		close(in);
	if (n != (ssize_t)(end - start) || memcmp(image, "\177ELF", 4) != 0) {
		corecap_warn("cannot read the vDSO of PID %d: %s (its frames stay unnamed "
			     "on another machine)",
			     (int)pid, n < 0 ? strerror(errno) : "not an ELF image");
		free(image);
		return;
	}
	ret = corecap_run_dir_create_file(rd, CORECAP_RUN_VDSO, &out);
	if (ret == 0) {
		ret = corecap_write_all(out, image, (size_t)n);
		if (close(out) < 0 && ret == 0)
			ret = -errno;
	}
	if (ret < 0)
		corecap_warn("cannot write '%s/" CORECAP_RUN_VDSO "': %s", rd->path,
			     strerror(-ret));
	else
		mb->vdso_bytes = (size_t)n;
	free(image);
}

int corecap_maps_buildid_save(struct corecap_maps_buildid *mb, pid_t pid,
			      struct corecap_run_dir *rd)
{
	char **seen = NULL;
	size_t n_seen = 0;
	char *text = NULL;
	FILE *out = NULL;
	char *line, *save;
	int ret;

	memset(mb, 0, sizeof(*mb));
	ret = copy_maps(mb, pid, rd, &text);
	if (ret < 0)
		goto out;
	save_vdso(mb, pid, rd, text);
	ret = corecap_run_dir_fopen(rd, CORECAP_RUN_BUILDIDS, &out);
	if (ret < 0)
		goto out_free;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char proc_path[4200], hex[129];
		const char *path = maps_path(line);
		bool dup = false;
		char **nseen;
		int fd;

		if (!path || strstr(path, " (deleted)"))
			continue;
		for (size_t i = 0; i < n_seen && !dup; i++)
			dup = strcmp(seen[i], path) == 0;
		if (dup)
			continue;
		nseen = realloc(seen, (n_seen + 1) * sizeof(*seen));
		if (!nseen) {
			ret = -ENOMEM;
			goto out_close;
		}
		seen = nseen;
		seen[n_seen++] = (char *)path;
		mb->n_files++;
		snprintf(proc_path, sizeof(proc_path), "/proc/%d/root%s", (int)pid, path);
		fd = open(proc_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (corecap_elf_build_id(fd, hex, sizeof(hex)) == 0) {
			fprintf(out, "%s\t%s\n", path, hex);
			mb->n_ids++;
		}
		close(fd);
	}
out_close:
	if (fclose(out) != 0 && ret == 0) {
		ret = -errno;
		corecap_error("cannot write '%s/" CORECAP_RUN_BUILDIDS "': %s", rd->path,
			      strerror(errno));
	}
out_free:
	free(seen);
	free(text);
out:
	return ret;
}
