// inline_cpp: a C++ program shaped like an OSD's op path, built -O2 with
// inlining, profiled by tests/e2e/flame_inline.sh: a templated sharded
// queue whose process() GCC inlines into the worker's loop, a PG whose
// do_op() is inlined into process(), std::map and std::sort from
// libstdc++'s headers inlined into both, and a std::mutex per PG that the
// workers contend for. With inlining, the sampled instructions lie in the
// worker's loop while the source says ShardedOpWQ<Op>::process ->
// PG::do_op -> std::sort: pprof and corecap must both show that chain.
// The lock is a pthread mutex rather than std::mutex: binutils' addr2line
// names libstdc++'s inlined __gthread_mutex_lock (a function without a
// linkage name) after its caller, a pprof error docs/flame.md describes.
//
// usage: inline_cpp SECONDS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <pthread.h>
#include <thread>
#include <vector>

namespace ceph
{
namespace osd
{

struct Op {
	unsigned long oid;
	int len;
};

class Mutex
{
      public:
	void lock()
	{
		pthread_mutex_lock(&m_);
	}
	void unlock()
	{
		pthread_mutex_unlock(&m_);
	}

      private:
	pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

class Locker
{
      public:
	explicit Locker(Mutex &m) : m_(m)
	{
		m_.lock();
	}
	~Locker()
	{
		m_.unlock();
	}

      private:
	Mutex &m_;
};

class PG
{
      public:
	explicit PG(int id) : id_(id)
	{
	}

	unsigned long do_op(const Op &op)
	{
		Locker guard(lock_);
		unsigned long &v = objects_[op.oid % 512];
		std::vector<unsigned long> extents(static_cast<size_t>(op.len));
		for (size_t i = 0; i < extents.size(); i++)
			extents[i] = (v + i) * 2654435761u % 1000003;
		std::sort(extents.begin(), extents.end());
		v += extents.front() + extents.back() + static_cast<unsigned long>(id_);
		return v;
	}

      private:
	int id_;
	Mutex lock_;
	std::map<unsigned long, unsigned long> objects_;
};

template <typename T> class ShardedOpWQ
{
      public:
	explicit ShardedOpWQ(std::vector<PG *> &pgs) : pgs_(pgs)
	{
	}

	unsigned long process(const T &op)
	{
		return pgs_[op.oid % pgs_.size()]->do_op(op);
	}

      private:
	std::vector<PG *> &pgs_;
};

} // namespace osd
} // namespace ceph

static volatile unsigned long sink;

static void worker(ceph::osd::ShardedOpWQ<ceph::osd::Op> *wq, unsigned seed, double seconds)
{
	auto t0 = std::chrono::steady_clock::now();
	unsigned long x = seed;

	do {
		for (int i = 0; i < 200; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			sink += wq->process(ceph::osd::Op{x >> 20, 64 + static_cast<int>(x % 64)});
		}
	} while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
		 seconds);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
	std::vector<ceph::osd::PG *> pgs;
	for (int i = 0; i < 2; i++)
		pgs.push_back(new ceph::osd::PG(i));
	ceph::osd::ShardedOpWQ<ceph::osd::Op> wq(pgs);
	std::vector<std::thread> threads;
	for (unsigned t = 0; t < 3; t++)
		threads.emplace_back(worker, &wq, t + 1, seconds);
	for (auto &t : threads)
		t.join();
	for (auto *pg : pgs)
		delete pg;
	std::printf("%lu\n", sink);
	return 0;
}
