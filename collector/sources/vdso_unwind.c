#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps_buildid.h"
#include "util/proc_stat.h"
#include "vdso_unwind.h"

/* DWARF pointer encodings (the LSB's .eh_frame_hdr) */
#define EH_PE_OMIT    0xffu
#define EH_PE_DATAREL 0x30u
#define EH_PE_SDATA4  0x0bu

/* Bytes of a value in encoding enc, or 0 for one this reader does not take. */
static size_t enc_bytes(uint8_t enc)
{
	switch (enc & 0x0fu) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		return 2;
	default:
		return 0;
	}
}

static uint64_t read_uint(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int corecap_vdso_unwind_parse(struct corecap_vdso_unwind *vu, const void *image, size_t bytes,
			      uint64_t base)
{
	const unsigned char *img = image;
	const unsigned char *eh = NULL;
	uint64_t load_vaddr = UINT64_MAX, text_start = 0, text_end = 0;
	size_t ptr_bytes, count_bytes, off;
	Elf64_Ehdr ehdr;
	Elf64_Phdr ph;
	uint64_t n;
	int ret = -EINVAL;

	memset(vu, 0, sizeof(*vu));
	if (bytes < sizeof(ehdr))
		goto out;
	memcpy(&ehdr, img, sizeof(ehdr));
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) != 0 || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_phentsize != sizeof(Elf64_Phdr) || ehdr.e_phoff > bytes ||
	    (bytes - ehdr.e_phoff) / sizeof(Elf64_Phdr) < ehdr.e_phnum)
		goto out;
	for (size_t i = 0; i < ehdr.e_phnum; i++) {
		memcpy(&ph, img + ehdr.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_offset == 0)
			load_vaddr = ph.p_vaddr;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !text_end) {
			text_start = ph.p_vaddr;
			text_end = ph.p_vaddr + ph.p_memsz;
		}
		if (ph.p_type == PT_GNU_EH_FRAME)
			eh = img + ehdr.e_phoff + i * sizeof(ph);
	}
	/* Mapped from its first byte: an address is base + (vaddr - load_vaddr);
	 * the code lies in the bytes read. */
	if (load_vaddr == UINT64_MAX || !text_end || text_start < load_vaddr ||
	    text_end < text_start || text_end - load_vaddr > bytes)
		goto out;
	ret = -ENOENT;
	if (!eh)
		goto out;
	memcpy(&ph, eh, sizeof(ph));
	ret = -EINVAL;
	if (ph.p_vaddr < load_vaddr || ph.p_vaddr - load_vaddr > bytes - 4)
		goto out;
	off = (size_t)(ph.p_vaddr - load_vaddr);
	/* version 1, eh_frame_ptr_enc, fde_count_enc, table_enc */
	if (img[off] != 1)
		goto out;
	ret = -ENOENT;
	if (img[off + 3] != (EH_PE_DATAREL | EH_PE_SDATA4) || img[off + 2] == EH_PE_OMIT)
		goto out;
	ret = -EINVAL;
	ptr_bytes = enc_bytes(img[off + 1]);
	count_bytes = enc_bytes(img[off + 2]);
	if (!ptr_bytes || !count_bytes || bytes - off < 4 + ptr_bytes + count_bytes)
		goto out;
	n = read_uint(img + off + 4 + ptr_bytes, count_bytes);
	if (n == 0 || n > (bytes - off - 4 - ptr_bytes - count_bytes) / 8)
		goto out;
	vu->text_start = base + (text_start - load_vaddr);
	vu->text_end = base + (text_end - load_vaddr);
	vu->hdr_addr = base + off;
	vu->table_addr = vu->hdr_addr + 4 + ptr_bytes + count_bytes;
	vu->n_fdes = n;
	ret = 0;
out:
	return ret;
}

/* AT_SYSINFO_EHDR of process pid: its vDSO's address, 0 when none. */
static uint64_t vdso_base(pid_t pid)
{
	char path[64], buf[4096];
	uint64_t av[2];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	n = corecap_read_small_file(AT_FDCWD, path, buf, sizeof(buf));
	for (ssize_t i = 0; i + (ssize_t)sizeof(av) <= n; i += (ssize_t)sizeof(av)) {
		memcpy(av, buf + i, sizeof(av));
		if (av[0] == AT_NULL)
			break;
		if (av[0] == AT_SYSINFO_EHDR)
			return av[1];
	}
	return 0;
}

int corecap_vdso_unwind_init(struct corecap_vdso_unwind *vu, pid_t pid)
{
	uint64_t base = vdso_base(pid);
	unsigned char *image = NULL;
	size_t bytes = 4096;
	Elf64_Ehdr ehdr;
	char path[64];
	int fd, ret;

	memset(vu, 0, sizeof(*vu));
	if (!base)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Its size: the end of its furthest segment, from the headers. */
	ret = -EINVAL;
	if (pread(fd, &ehdr, sizeof(ehdr), (off_t)base) != (ssize_t)sizeof(ehdr) ||
	    ehdr.e_phentsize != sizeof(Elf64_Phdr) || ehdr.e_phnum > 64)
		goto out_close_fd;
	for (size_t i = 0; i < ehdr.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(base + ehdr.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			goto out_close_fd;
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > bytes)
			bytes = ph.p_offset + ph.p_filesz;
	}
	if (bytes > CORECAP_VDSO_MAX_BYTES)
		goto out_close_fd;
	ret = -ENOMEM;
	image = malloc(bytes);
	if (!image)
		goto out_close_fd;
	ret = -EIO;
	if (pread(fd, image, bytes, (off_t)base) != (ssize_t)bytes)
		goto out_free;
	ret = corecap_vdso_unwind_parse(vu, image, bytes, base);
out_free:
	free(image);
out_close_fd:
	close(fd);
	return ret;
}
