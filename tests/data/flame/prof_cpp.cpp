// prof_target's C++ part: demangled names with namespaces, templates and
// argument lists, as pprof prints them (addr2line -C, nm -C).
#include <vector>

namespace store {
template <typename T> struct Codec {
	static T encode(T v, int rounds)
	{
		for (int i = 0; i < rounds; i++)
			v = v * 31 + static_cast<T>(i);
		return v;
	}
};

class Shard {
public:
	unsigned long apply(const std::vector<int> &ops, int rounds) const
	{
		unsigned long acc = 0;
		for (int op : ops)
			acc += Codec<unsigned long>::encode(static_cast<unsigned long>(op), rounds);
		return acc;
	}
};
} // namespace store

static volatile unsigned long cpp_sink;

extern "C" void cpp_entry(unsigned rounds)
{
	static const std::vector<int> ops = {1, 2, 3, 4, 5, 6, 7, 8};
	store::Shard shard;

	cpp_sink += shard.apply(ops, static_cast<int>(rounds));
}
