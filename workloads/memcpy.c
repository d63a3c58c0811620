/*
 * memcpy: the machine's copy bandwidth, per worker and in aggregate: the
 * ceiling that cached reads (readtest, extract) are measured against.
 * Three ways to copy (libc memcpy, a plain word loop, non-temporal stores
 * where the compiler offers them) times two block sizes: one that fits in
 * L2 with room to spare and one far beyond the last-level cache, sized
 * from the hwloc topology.  Each of the six phases runs for a fixed time
 * so that concurrent workers stay in the same phase.
 */
#include <errno.h>
#include <hwloc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define MC_HAVE_NT	1
#else
#define MC_HAVE_NT	0
#endif

#include "wl_common.h"

#define MC_NAME		"memcpy"
#define MC_ALIGN	64

enum { MC_MEMCPY, MC_LOOP, MC_NT, MC_NMETHODS };

static const char *const mc_methods[] = { "memcpy", "loop", "nt" };

struct mc_state {
	uint64_t	 cached;	/* -O cached=, 0: from L2 */
	uint64_t	 uncached;	/* -O uncached=, 0: from LLC; all workers' */
	double		 duration;	/* -O duration=, per phase */
	uint64_t	 l2, llc;	/* prepare: hwloc cache sizes, 0 unknown */
};

struct mc_worker {
	unsigned char	*src[2], *dst[2];	/* [0] cached, [1] uncached */
};

/* In order: method-major, cached then uncached (mc_run fills them so). */
static const struct wl_metric mc_metrics[] = {
	{ "memcpy_cached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "memcpy_uncached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "loop_cached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "loop_uncached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "nt_cached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
	{ "nt_uncached_bytes_per_s", "bytes/s", WL_AGG_SUM, 1 },
};

static void *
mc_init(void)
{
	struct mc_state *mc = xcalloc(1, sizeof(*mc));

	mc->duration = 0.2;
	return (mc);
}

static int
mc_set_option(void *state, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct mc_state *mc = state;

	if (strcmp(key, "cached") == 0)
		return (wl_opt_size(MC_NAME, key, value, 4096, &mc->cached,
		    err, errlen));
	if (strcmp(key, "uncached") == 0)
		return (wl_opt_size(MC_NAME, key, value, 4096, &mc->uncached,
		    err, errlen));
	if (strcmp(key, "duration") == 0)
		return (wl_opt_seconds(MC_NAME, key, value, &mc->duration,
		    err, errlen));
	return (wl_opt_unknown(MC_NAME, key, "cached, uncached, duration",
	    err, errlen));
}

/* Largest data cache at exactly depth (2) or at least depth (3: LLC). */
static uint64_t
mc_cache_size(hwloc_topology_t topo, unsigned depth, int or_deeper)
{
	hwloc_obj_t obj;
	uint64_t best = 0;
	int t;

	for (t = HWLOC_OBJ_L1CACHE; t <= HWLOC_OBJ_L5CACHE; t++)
		for (obj = NULL; (obj = hwloc_get_next_obj_by_type(topo,
		    (hwloc_obj_type_t)t, obj)) != NULL;) {
			if (obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
				continue;
			if (obj->attr->cache.depth == depth ||
			    (or_deeper && obj->attr->cache.depth > depth))
				if (obj->attr->cache.size > best)
					best = obj->attr->cache.size;
		}
	return (best);
}

static int
mc_prepare(void *state, char *err, size_t errlen)
{
	struct mc_state *mc = state;
	hwloc_topology_t topo;

	if (hwloc_topology_init(&topo) == 0) {
		if (hwloc_topology_load(topo) == 0) {
			mc->l2 = mc_cache_size(topo, 2, 0);
			mc->llc = mc_cache_size(topo, 3, 1);
			if (mc->llc == 0)
				mc->llc = mc->l2;
		}
		hwloc_topology_destroy(topo);
	}
	/* Source and destination both fit in L2, with room for the rest. */
	if (mc->cached == 0)
		mc->cached = mc->l2 != 0 ? mc->l2 / 4 : 128 << 10;
	/* Well past the LLC, but bounded: a VM may report the host's. */
	if (mc->uncached == 0) {
		mc->uncached = 4 * mc->llc;
		if (mc->uncached < (64ULL << 20))
			mc->uncached = 64ULL << 20;
		if (mc->uncached > (1ULL << 30))
			mc->uncached = 1ULL << 30;
	}
	if (mc->cached >= mc->uncached) {
		snprintf(err, errlen, "%s: cached=%" PRIu64 " must be smaller "
		    "than uncached=%" PRIu64, MC_NAME, mc->cached,
		    mc->uncached);
		return (-1);
	}
	return (0);
}

static void
mc_describe(void *state, FILE *fp)
{
	struct mc_state *mc = state;
	char a[32], b[32], c[32], d[32];

	meta_put(fp, "memcpy.cached", "%s",
	    format_size(mc->cached, a, sizeof(a)));
	meta_put(fp, "memcpy.uncached", "%s",
	    format_size(mc->uncached, b, sizeof(b)));
	meta_put(fp, "memcpy.l2", "%s", format_size(mc->l2, c, sizeof(c)));
	meta_put(fp, "memcpy.llc", "%s",
	    format_size(mc->llc, d, sizeof(d)));
	meta_put(fp, "memcpy.duration", "%g", mc->duration);
	meta_put(fp, "memcpy.nt", "%s",
	    MC_HAVE_NT ? "sse2-stream" : "unavailable (memcpy used)");
}

static int
mc_batch_setup(void *state, const struct wl_batch *b, char *err,
    size_t errlen)
{
	struct mc_state *mc = state;
	uint64_t need, mem = wl_phys_mem();
	char a[32], c[32];

	need = 2 * (mc->cached * (uint64_t)b->jobs + mc->uncached);
	if (mem != 0 && need > mem / 2) {
		snprintf(err, errlen, "%s: %d workers need %s of buffers, more "
		    "than half of the machine's %s: use a smaller -O uncached=",
		    MC_NAME, b->jobs, format_size(need, a, sizeof(a)),
		    format_size(mem, c, sizeof(c)));
		return (-1);
	}
	return (0);
}

/*
 * The uncached block is shared out as STREAM does: the workers' blocks
 * together are uncached= bytes, far beyond the shared LLC, so memory use
 * stays the same at any worker count.
 */
static uint64_t
mc_share(const struct mc_state *mc, const struct wl_worker *w)
{
	uint64_t n = mc->uncached / (uint64_t)(w->jobs > 0 ? w->jobs : 1);

	if (n < 2 * mc->cached)
		n = 2 * mc->cached;
	return ((n + 63) & ~(uint64_t)63);
}

static int
mc_worker_setup(void *state, struct wl_worker *w)
{
	struct mc_state *mc = state;
	struct mc_worker *p = xcalloc(1, sizeof(*p));
	uint64_t size[2] = { mc->cached, mc_share(mc, w) };
	void *q;
	int i;

	w->priv = p;
	for (i = 0; i < 2; i++) {
		if (posix_memalign(&q, MC_ALIGN, size[i]) != 0)
			goto fail;
		p->src[i] = q;
		if (posix_memalign(&q, MC_ALIGN, size[i]) != 0)
			goto fail;
		p->dst[i] = q;
		/* Fault every page in now, not while timing. */
		memset(p->src[i], 0x5a, size[i]);
		memset(p->dst[i], 0, size[i]);
	}
	return (0);
fail:
	wl_report(w, WL_FAILED, "%s: allocating %" PRIu64 " bytes: %s",
	    MC_NAME, size[i], strerror(errno));
	return (-1);
}

/* Eight words per step; the barrier keeps the compiler from turning it
 * into a memcpy call or vectorising it. */
static void
mc_copy_loop(void *dst, const void *src, size_t len)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	size_t i, n = len / 64;

	for (i = 0; i < n; i++, d += 8, s += 8) {
		d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
		d[4] = s[4]; d[5] = s[5]; d[6] = s[6]; d[7] = s[7];
		__asm__ __volatile__("" ::: "memory");
	}
}

static void
mc_copy_nt(void *dst, const void *src, size_t len)
{
#if MC_HAVE_NT
	__m128i *d = dst;
	const __m128i *s = src;
	size_t i, n = len / 64;

	for (i = 0; i < n; i++, d += 4, s += 4) {
		_mm_stream_si128(d, _mm_load_si128(s));
		_mm_stream_si128(d + 1, _mm_load_si128(s + 1));
		_mm_stream_si128(d + 2, _mm_load_si128(s + 2));
		_mm_stream_si128(d + 3, _mm_load_si128(s + 3));
	}
	_mm_sfence();
#else
	memcpy(dst, src, len);
#endif
}

static enum wl_status
mc_run(void *state, struct wl_worker *w)
{
	struct mc_state *mc = state;
	struct mc_worker *p = w->priv;
	uint64_t size[2] = { mc->cached, mc_share(mc, w) }, bytes;
	double t0, t;
	int m, i;

	if (p == NULL || p->dst[1] == NULL)
		return (wl_report(w, WL_FAILED, "%s: worker not set up",
		    MC_NAME));
	w->bytes = 0;
	for (m = 0; m < MC_NMETHODS; m++)
		for (i = 0; i < 2; i++) {
			/* Whole multiples of 64 bytes for the unrolled copies. */
			size_t len = (size_t)(size[i] & ~(uint64_t)63);

			bytes = 0;
			t0 = now_monotonic();
			do {
				if (m == MC_MEMCPY)
					memcpy(p->dst[i], p->src[i], len);
				else if (m == MC_LOOP)
					mc_copy_loop(p->dst[i], p->src[i], len);
				else
					mc_copy_nt(p->dst[i], p->src[i], len);
				bytes += len;
				t = now_monotonic() - t0;
			} while (t < mc->duration);
			w->metric[m * 2 + i] = (double)bytes / t;
			w->bytes += bytes;
			w->entries++;
		}
	return (w->status);
}

/* Every copy wrote the source to the destination: check the last one. */
static enum wl_status
mc_verify(void *state, struct wl_worker *w)
{
	struct mc_state *mc = state;
	struct mc_worker *p = w->priv;
	uint64_t size[2] = { mc->cached, mc_share(mc, w) };
	int i;

	if (p == NULL)
		return (w->status);
	for (i = 0; i < 2; i++)
		if (memcmp(p->dst[i], p->src[i],
		    (size_t)(size[i] & ~(uint64_t)63)) != 0)
			return (wl_report(w, WL_FAILED, "%s: %s copy differs "
			    "from its source", MC_NAME, mc_methods[MC_NT]));
	return (w->status);
}

static void
mc_cleanup(void *state, struct wl_worker *w)
{
	struct mc_worker *p = w->priv;
	int i;

	(void)state;
	if (p == NULL)
		return;
	for (i = 0; i < 2; i++) {
		free(p->src[i]);
		free(p->dst[i]);
	}
	free(p);
	w->priv = NULL;
}

static void
mc_fini(void *state)
{
	free(state);
}

const struct workload wl_memcpy = {
	.name = "memcpy",
	.summary = "copy bandwidth (memcpy, loop, non-temporal; in and out "
	    "of cache)",
	.options_help =
	    "cached=L2/4       block that fits in L2 (source and destination)\n"
	    "uncached=4*LLC    all workers' block beyond the LLC (64M..1G; "
	    "each copies 1/N)\n"
	    "duration=0.2      seconds per method and block size (6 phases)\n",
	.metrics = mc_metrics,
	.nmetrics = sizeof(mc_metrics) / sizeof(mc_metrics[0]),
	.needs_fs = 0,
	.init = mc_init,
	.set_option = mc_set_option,
	.prepare = mc_prepare,
	.describe = mc_describe,
	.batch_setup = mc_batch_setup,
	.worker_setup = mc_worker_setup,
	.worker_run = mc_run,
	.worker_verify = mc_verify,
	.worker_cleanup = mc_cleanup,
	.fini = mc_fini,
};
