/**
 * glibc allocator settings for a process whose job is the fault proxy.
 *
 * Node reads every socket chunk into a fresh 64 KiB allocation. With glibc's defaults the
 * freed top of the heap is trimmed back to the kernel after each chunk, so the next read
 * page-faults its buffer in again: in a perf profile of a proxy moving 1 MiB transfers, those
 * faults were 15 % of its CPU, and the proxy (not the client) was the bottleneck. Keeping 64 MiB
 * of heap padding and trimming only above 256 MiB of free top roughly doubles the proxy's
 * throughput (`npm run bench:toxiproxy` prints both allocators side by side). glibc reads these
 * variables once at process start, so they are set by whoever spawns the proxy: the cluster
 * launcher, the benchmark and the `npm run toxiproxy` script.
 */
export const PROXY_ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_TOP_PAD_: String(64 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024),
};
