/*
 * The kernel matrix's workload, run inside each guest (built static by scripts/kernel-matrix.sh).
 *
 *   wl MIB           allocate MIB of anonymous memory, fill it with the advisor's mix, print
 *                    "filled pages=N", then serve one command a line on stdin:
 *   read             read one byte of every page (swap-ins that leave the page clean: without
 *                    exclusive loads it stays in zswap and in the swap cache), print "done"
 *   touch            write one byte of every page (swap-ins that free the swap slot), "done"
 *   timed            read as `read` does, timing each page that is not zero-filled (the swap-in
 *                    probes' cost, scenario-bpf.sh): "timed n=N p50=NS p90=NS"
 *   verify           every page holds what was written, "ok" or "bad N"
 *   exit             exit 0
 *
 *   wl swapon DEV PRIO   swapon(2) with a priority (busybox's swapon may be built without -p)
 *   wl floor         the probes' floor (scenario-bpf.sh's bpf-overhead): an empty fentry and an
 *                    empty fexit program (`return 0`) on do_swap_page, loaded through bpf(2),
 *                    print "floor attached" and hold them until killed; "floor refused: WHY"
 *                    where the kernel refuses them. What any program that times each fault
 *                    costs (one trampoline, two program runs) before it does anything.
 *
 * The mix is the one tests/e2e/workload.rs fills for the advisor (fill_advise_page), by i % 20:
 * 10 % zero-filled, 5 % one machine word repeated, 10 % random, 35 % text from a small
 * vocabulary, 30 % structured records, 10 % half text and half zeros. C, not Rust: a static C
 * program builds in a second with the system's compiler, where a static Rust test binary would
 * be a second build of every dependency for another target.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (z ^ (z >> 31)) | 1;
}

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static const char *WORDS[] = {
	"the", "memory", "page", "kernel", "swap", "compressed", "pool", "of", "and", "a",
	"process", "to", "is", "in", "zswap", "zram", "ratio", "allocator", "when", "that",
	"reclaim", "cache", "with", "for", "file", "anonymous", "resident", "cgroup", "limit",
	"writeback", "bytes",
};
#define NWORDS (sizeof(WORDS) / sizeof(WORDS[0]))

static void text(uint64_t *rng, unsigned char *out, size_t len)
{
	size_t at = 0;
	while (at < len) {
		const char *w = WORDS[next(rng) % NWORDS];
		size_t n = strlen(w);
		for (size_t k = 0; k <= n && at < len; k++)
			out[at++] = k < n ? (unsigned char)w[k] : ' ';
	}
}

static void fill(size_t i, unsigned char *buf, size_t ps)
{
	uint64_t rng = mix64((uint64_t)i ^ 0xad515e00ull);
	switch (i % 20) {
	case 0:
	case 1:
		memset(buf, 0, ps);
		break;
	case 2: {
		uint64_t word = ((uint64_t)i | 1) * 0x0101010101010101ull;
		for (size_t k = 0; k < ps; k += 8)
			memcpy(buf + k, &word, 8);
		break;
	}
	case 3:
	case 4:
		for (size_t k = 0; k < ps; k += 8) {
			uint64_t v = next(&rng);
			memcpy(buf + k, &v, 8);
		}
		break;
	case 5: case 6: case 7: case 8: case 9: case 10: case 11:
		text(&rng, buf, ps);
		break;
	case 12: case 13: case 14: case 15: case 16: case 17:
		for (size_t k = 0; k * 32 < ps; k++) {
			unsigned char r[32];
			uint32_t id = (uint32_t)(i * 128 + k);
			uint16_t a = (uint16_t)(next(&rng) % 7), b = (uint16_t)(k % 3);
			uint64_t ptr = 0x00007f3a10000000ull + (next(&rng) % 4096) * 64;
			double v = (double)(next(&rng) % 100000) / 100.0;
			uint64_t big = (uint64_t)id * 1000;
			memcpy(r, &id, 4);
			memcpy(r + 4, &a, 2);
			memcpy(r + 6, &b, 2);
			memcpy(r + 8, &ptr, 8);
			memcpy(r + 16, &v, 8);
			memcpy(r + 24, &big, 8);
			memcpy(buf + k * 32, r, 32);
		}
		break;
	default:
		text(&rng, buf, ps / 2);
		memset(buf + ps / 2, 0, ps - ps / 2);
		break;
	}
}

/* The BTF type id of the function `name` in the kernel's BTF (/sys/kernel/btf/vmlinux), 0 if
 * absent. Each type is a struct btf_type (12 bytes) and what its kind appends. */
static uint32_t btf_func(const char *name)
{
	FILE *f = fopen("/sys/kernel/btf/vmlinux", "rb");
	if (!f)
		return 0;
	static unsigned char b[64 << 20];
	size_t len = fread(b, 1, sizeof b, f);
	fclose(f);
	if (len < 24 || b[0] != 0x9f || b[1] != 0xeb)
		return 0;
	uint32_t hdr, toff, tlen, soff, slen;
	memcpy(&hdr, b + 4, 4);
	memcpy(&toff, b + 8, 4);
	memcpy(&tlen, b + 12, 4);
	memcpy(&soff, b + 16, 4);
	memcpy(&slen, b + 20, 4);
	if ((uint64_t)hdr + toff + tlen > len || (uint64_t)hdr + soff + slen > len)
		return 0;
	const unsigned char *t = b + hdr + toff, *end = t + tlen;
	const char *str = (const char *)b + hdr + soff;
	for (uint32_t id = 1; t + 12 <= end; id++) {
		uint32_t name_off, info;
		memcpy(&name_off, t, 4);
		memcpy(&info, t + 4, 4);
		uint32_t kind = (info >> 24) & 0x1f, vlen = info & 0xffff;
		if (kind == BTF_KIND_FUNC && name_off < slen && !strcmp(str + name_off, name))
			return id;
		size_t extra = 0;
		switch (kind) {
		case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: extra = 4; break;
		case BTF_KIND_ARRAY: extra = 12; break;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC: extra = 12 * vlen; break;
		case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO: extra = 8 * vlen; break;
		case 19 /* BTF_KIND_ENUM64 */: extra = 12 * vlen; break;
		default: break;
		}
		t += 12 + extra;
	}
	return 0;
}

/* Load `return 0` as a tracing program of `type` on BTF function `id` and attach it. */
static int empty_prog(uint32_t id, enum bpf_attach_type type)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	a.attach_btf_id = id;
	int fd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof a);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.raw_tracepoint.prog_fd = fd;
	return (int)syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &a, sizeof a);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "floor")) {
		uint32_t id = btf_func("do_swap_page");
		if (!id) {
			printf("floor refused: no do_swap_page in /sys/kernel/btf/vmlinux\n");
			return 1;
		}
		if (empty_prog(id, BPF_TRACE_FENTRY) < 0 || empty_prog(id, BPF_TRACE_FEXIT) < 0) {
			printf("floor refused: %s\n", strerror(errno));
			return 1;
		}
		printf("floor attached\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc == 4 && !strcmp(argv[1], "swapon")) {
		int prio = atoi(argv[3]);
		int flags = SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
		if (swapon(argv[2], flags)) {
			perror(argv[2]);
			return 1;
		}
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: wl MIB\n");
		return 2;
	}
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (size_t)strtoul(argv[1], NULL, 10) * (1024 * 1024 / ps);
	unsigned char *mem = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* No transparent huge pages: each page is swapped (and compressed) on its own. */
	madvise(mem, pages * ps, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		fill(i, mem + i * ps, ps);
	printf("filled pages=%zu\n", pages);
	fflush(stdout);

	char line[64];
	unsigned char *check = malloc(ps);
	volatile unsigned long sink = 0;
	while (fgets(line, sizeof line, stdin)) {
		if (!strncmp(line, "read", 4)) {
			for (size_t i = 0; i < pages; i++)
				sink += mem[i * ps + ps / 2];
			printf("done\n");
		} else if (!strncmp(line, "timed", 5)) {
			/* cases 0 and 1 of fill() are zero-filled: another tier since 6.12 */
			uint64_t *ns = malloc(pages * sizeof *ns);
			size_t n = 0;
			for (size_t i = 0; ns && i < pages; i++) {
				if (i % 20 < 2) {
					sink += mem[i * ps + ps / 2];
					continue;
				}
				uint64_t t0 = now_ns();
				sink += mem[i * ps + ps / 2];
				ns[n++] = now_ns() - t0;
			}
			if (ns && n) {
				qsort(ns, n, sizeof *ns, by_value);
				printf("timed n=%zu p50=%llu p90=%llu\n", n,
				       (unsigned long long)ns[n / 2],
				       (unsigned long long)ns[n * 9 / 10]);
			} else {
				printf("timed n=0\n");
			}
			free(ns);
		} else if (!strncmp(line, "touch", 5)) {
			for (size_t i = 0; i < pages; i++) {
				volatile unsigned char *p = mem + i * ps;
				*p = *p;
			}
			printf("done\n");
		} else if (!strncmp(line, "verify", 6)) {
			size_t bad = 0;
			for (size_t i = 0; i < pages; i++) {
				fill(i, check, ps);
				if (memcmp(check, mem + i * ps, ps))
					bad++;
			}
			if (bad)
				printf("bad %zu\n", bad);
			else
				printf("ok\n");
		} else if (!strncmp(line, "exit", 4)) {
			return 0;
		}
		fflush(stdout);
	}
	(void)sink;
	return 0;
}
