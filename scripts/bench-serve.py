#!/usr/bin/env python3
"""Benchmark `zswaptop serve` (not a timed test: run by hand, figures for the README).

1. Scrape cost: CPU time (utime+stime from /proc/PID/stat) of N sequential scrapes, each one
   a fresh sample (spaced past the server's 200 ms sharing window), against N runs of
   `zswaptop --once --json` (CPU from getrusage of the children).
2. RSS idle, then under load: CONCURRENCY scrapers in a loop for DURATION seconds on
   loopback, with RSS sampled every second; every scrape must succeed; p50/p99 latency.
3. During the load: malformed requests are answered 400 at once, and a slowloris client
   (a header every 500 ms, never the end) is closed within the server's 5 s request limit.

    scripts/bench-serve.py                      # the release build, live /proc and /sys
    ZSWAPTOP=target/debug/zswaptop N=50 DURATION=10 scripts/bench-serve.py

Everything listens on 127.0.0.1; the run stops itself. Exit status 0 when every budget holds
(scrape CPU <= --once --json, RSS <= 8 MiB, no failed scrape, slow/malformed closed in time).
"""

import http.client
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time

BIN = os.environ.get("ZSWAPTOP", "target/release/zswaptop")
N = int(os.environ.get("N", "200"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "50"))
DURATION = float(os.environ.get("DURATION", "30"))
RSS_BUDGET_KIB = 8 * 1024
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def scrape(port, timeout=10.0):
    t = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
        r = c.getresponse()
        body = r.read()
        ok = r.status == 200 and body.endswith(b"# EOF\n")
    except OSError:
        ok = False
    finally:
        c.close()
    return ok, time.monotonic() - t


def main():
    if not os.access(BIN, os.X_OK):
        print(f"bench: {BIN} not built (cargo build --release)", file=sys.stderr)
        return 2
    ok = True

    # --- --once --json, N runs -------------------------------------------------------------
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(N):
        subprocess.run([BIN, "--once", "--json"], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    once_cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / N

    # --- serve ----------------------------------------------------------------------------------
    srv = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    try:
        line = srv.stderr.readline().strip()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        scrape(port)
        time.sleep(1.0)
        rss_idle = rss_kib(srv.pid)
        c0 = cpu_seconds(srv.pid)
        for _ in range(N):
            good, _ = scrape(port)
            ok &= good
            time.sleep(0.21)
        scrape_cpu = (cpu_seconds(srv.pid) - c0) / N
        print(f"CPU per sample: --once --json {once_cpu * 1e3:.2f} ms (whole process), "
              f"one scrape {scrape_cpu * 1e3:.2f} ms  ({N} each, /proc/PID/stat ticks of {1e3 / TICK:.0f} ms)")
        ok &= scrape_cpu <= once_cpu
        time.sleep(1.0)
        rss_idle_after = rss_kib(srv.pid)
        print(f"RSS idle: {rss_idle} KiB at start, {rss_idle_after} KiB after the {N} scrapes")

        # --- load -------------------------------------------------------------------------------
        stop = time.monotonic() + DURATION
        lat, fails, lock = [], [0], threading.Lock()

        def scraper():
            while time.monotonic() < stop:
                good, dt = scrape(port)
                with lock:
                    lat.append(dt)
                    fails[0] += 0 if good else 1

        rss_seen = []

        def watch_rss():
            while time.monotonic() < stop:
                rss_seen.append(rss_kib(srv.pid))
                time.sleep(1.0)

        slow = {}

        def slowloris():
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /metrics HTTP/1.1\r\n")
            t = time.monotonic()
            s.settimeout(0.5)
            try:
                while time.monotonic() - t < 20:
                    try:
                        if s.recv(1) == b"":
                            break
                    except socket.timeout:
                        s.sendall(b"X-Slow: 1\r\n")
            except OSError:
                pass
            slow["closed_after"] = time.monotonic() - t
            s.close()

        bad = []

        def malformed():
            for req in [b"\x00\x01\x02 garbage\r\n\r\n", b"GET /metrics HTTP/9\r\n\r\n", b"POST / HTTP/1.1\r\n\r\n"]:
                s = socket.create_connection(("127.0.0.1", port))
                t = time.monotonic()
                s.settimeout(10)
                s.sendall(req)
                data = b""
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                bad.append((data.split(b"\r\n", 1)[0].decode(errors="replace"), time.monotonic() - t))
                s.close()

        threads = [threading.Thread(target=scraper) for _ in range(CONCURRENCY)]
        threads += [threading.Thread(target=watch_rss), threading.Thread(target=slowloris),
                    threading.Thread(target=malformed)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lat.sort()
        p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1e3
        print(f"Load: {CONCURRENCY} scrapers for {DURATION:.0f} s: {len(lat)} scrapes, {fails[0]} failed, "
              f"p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms, max {lat[-1] * 1e3:.1f} ms")
        print(f"RSS under load: min {min(rss_seen)} KiB, max {max(rss_seen)} KiB "
              f"(first {rss_seen[0]}, last {rss_seen[-1]}; {len(rss_seen)} samples)")
        print("RSS every 5 s (KiB):", " ".join(str(r) for r in rss_seen[::5]))
        print(f"Slowloris closed after {slow.get('closed_after', float('nan')):.2f} s (limit 5 s from accept)")
        for status, dt in bad:
            print(f"Malformed: '{status}' in {dt * 1e3:.1f} ms")
        ok &= fails[0] == 0
        ok &= max(rss_seen + [rss_idle, rss_idle_after]) <= RSS_BUDGET_KIB
        ok &= slow.get("closed_after", 99) < 6.0
        ok &= all(s.startswith("HTTP/1.1 4") and dt < 1.0 for s, dt in bad)
        good, _ = scrape(port)
        ok &= good
        print("still serving after the load:", "yes" if good else "NO")
    finally:
        srv.terminate()
        srv.wait()
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
