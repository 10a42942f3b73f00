# record --wallclock through the kernel (collector/kernel/kernel_offcpu.h):
# its stacks against the ptrace sampler's on refosd, and each thread's
# samples against those due. Measured: the samples per thread hold on
# free CPUs. About 8 s.
corecap_e2e_test(kernel_offcpu_depth kernel_offcpu_depth.sh TIMEOUT 90 LABELS "analysis;collector;kernel;measured")
