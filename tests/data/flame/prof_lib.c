/* prof_target's shared library: frames in a second ELF file. */
static volatile unsigned lib_sink;

static unsigned mix(unsigned x)
{
	for (int i = 0; i < 8; i++)
		x = x * 2654435761u ^ x >> 13;
	return x;
}

void lib_hash_block(unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++)
		lib_sink += mix(i + lib_sink);
}
