# The wall-clock samplers' accuracy (#43, "Wall-clock accuracy"): wallshare
# (tests/wallshare) runs threads with known shares of the window on a CPU,
# runnable and blocked; the ptrace sampler must draw each thread's phases
# within 0.05 of them, the kernel's on-CPU samples each spinner's CPU
# share. Measured: the shares hold on two free CPUs. About 10 s each.
corecap_e2e_test(wall_share_ptrace wall_share_ptrace.sh TIMEOUT 90 LABELS "analysis;collector;measured")
corecap_e2e_test(wall_share_kernel wall_share_kernel.sh TIMEOUT 90 LABELS "analysis;collector;kernel;measured")
