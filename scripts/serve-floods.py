#!/usr/bin/env python3
"""A scraper that does not retry against `zswaptop serve` under a flood (not a timed test: run
by hand, figures for the README; loopback only, bounded in count and time).

usage: [HASH=BCRYPT] [FROM=127.0.0.2] scripts/serve-floods.py BIN MODE [SCRAPES]
  (from the repository's root: the server serves tests/fixtures/linux-6.18-loaded, or $ROOT)
  HASH: the bcrypt hash of the password s3cret, for the auth modes
        (htpasswd -nbBC 10 "" s3cret | tr -d ':\n')
  FROM: the address the auth flood comes from (default 127.0.0.1, the scraper's own)
  MODE: auth-one   400 connections sending one wrong password, request after request
        auth-many  400 connections sending a new wrong password each request
        idle-keep  3,000 idle connections (each one closed opened again, <= 300 every 100 ms); the
             scraper keeps its connection alive
        idle-new   3,000 idle connections; scraper opens a new connection for each scrape
The scraper: one request a second, no retry, 5 s timeout. Prints answers and latencies.
"""
import base64, os, select, socket, subprocess, sys, tempfile, threading, time

BIN, MODE = sys.argv[1], sys.argv[2]
SCRAPES = int(sys.argv[3]) if len(sys.argv) > 3 else 15
HASH = os.environ.get("HASH")  # bcrypt of s3cret
ROOT = os.environ.get("ROOT", "tests/fixtures/linux-6.18-loaded")

def auth(user, pw):
    return "Authorization: Basic " + base64.b64encode(f"{user}:{pw}".encode()).decode() + "\r\n"

args = [BIN, "serve", "--listen", "127.0.0.1:0", "--root", ROOT]
tmp = tempfile.mkdtemp()
good = ""
if MODE.startswith("auth"):
    web = os.path.join(tmp, "web.yml")
    open(web, "w").write(f"basic_auth_users:\n  prometheus: '{HASH}'\n")
    args += ["--web-config", web]
    good = auth("prometheus", "s3cret")
srv = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
line = srv.stderr.readline()
addr = line.strip().split("http://")[1].split("/metrics")[0]
host, port = addr.split(":"); port = int(port)
stop = threading.Event()
stats = {"flood_answers": 0, "opened": 0}

SRC = os.environ.get("FROM", "127.0.0.1")  # the flood's source address (the scraper's: 127.0.0.1)

def conn_from():
    c = socket.socket(); c.bind((SRC, 0)); c.connect((host, port)); return c

def flood_auth(distinct):
    conns = []
    n = 0
    while len(conns) < 400:
        conns.append(conn_from())
    for c in conns:
        c.setblocking(False)
    def send(c):
        nonlocal n
        n += 1
        pw = f"wrong{n}" if distinct else "wrong"
        try:
            c.send(f"GET /metrics HTTP/1.1\r\nHost: x\r\n{auth('prometheus', pw)}\r\n".encode())
        except OSError:
            pass
    for c in conns:
        send(c)
    while not stop.is_set():
        r, _, _ = select.select(conns, [], [], 0.1)
        for c in r:
            try:
                data = c.recv(65536)
            except OSError:
                data = b""
            if data:
                stats["flood_answers"] += data.count(b"HTTP/1.1 ")
                stats["flood_503"] = stats.get("flood_503", 0) + data.count(b"HTTP/1.1 503")
                send(c)
            else:
                conns.remove(c)
                try:
                    nc = conn_from(); nc.setblocking(False)
                    conns.append(nc); send(nc)
                except OSError:
                    pass

def flood_idle():
    import selectors
    sel = selectors.DefaultSelector()
    held = 0
    while not stop.is_set():
        # Reopen what the server closed, up to 3,000, at most 300 every 100 ms.
        for key, _ in sel.select(0):
            sel.unregister(key.fileobj); key.fileobj.close(); held -= 1
        k = 0
        while held < 3000 and k < 300:
            s = socket.socket(); s.setblocking(False)
            if s.connect_ex((host, port)) in (0, 115):  # EINPROGRESS: the handshake goes on
                sel.register(s, selectors.EVENT_READ); held += 1; stats["opened"] += 1
            else:
                s.close(); stats["failed"] = stats.get("failed", 0) + 1
            k += 1
        stats["held"] = held
        time.sleep(0.1)

def read_answer(f):
    status = f.readline()
    length = 0
    while True:
        l = f.readline()
        if not l:
            raise OSError("closed")
        if l.lower().startswith(b"content-length:"):
            length = int(l.split(b":")[1])
        if l == b"\r\n":
            break
    body = f.read(length)
    if len(body) < length:
        raise OSError("short body")
    return status

flood = None
if MODE == "auth-one": flood = threading.Thread(target=flood_auth, args=(False,))
if MODE == "auth-many": flood = threading.Thread(target=flood_auth, args=(True,))
if MODE.startswith("idle"): flood = threading.Thread(target=flood_idle)
flood.start()
time.sleep(2)
results = []
keep = None
for i in range(SCRAPES):
    t0 = time.monotonic()
    try:
        if MODE == "idle-keep":
            if keep is None:
                ks = socket.create_connection((host, port), timeout=5)
                keep = (ks, ks.makefile("rb"))
            keep[0].sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            status = read_answer(keep[1])
        else:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(f"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{good}\r\n".encode())
            status = read_answer(s.makefile("rb")); s.close()
        ok = status.startswith(b"HTTP/1.1 200")
        results.append((ok, time.monotonic() - t0, status.strip().decode()))
    except OSError as e:
        results.append((False, time.monotonic() - t0, str(e)))
        if MODE == "idle-keep":
            keep = None  # no retry: this scrape is lost; the next one reconnects
    time.sleep(max(0, 1 - (time.monotonic() - t0)))
stop.set(); flood.join()
rss = [l for l in open(f"/proc/{srv.pid}/status") if l.startswith(("VmHWM", "VmRSS"))]
srv.kill(); srv.wait()
lat = sorted(r[1] for r in results if r[0])
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")
print(f"{MODE}: {sum(r[0] for r in results)} of {len(results)} scrapes answered 200; "
      f"latency ms min {p(0):.1f} median {p(0.5):.1f} p90 {p(0.9):.1f} max {p(1.0):.1f}; "
      f"flood answers {stats['flood_answers']} (503: {stats.get('flood_503', 0)}), idle opened {stats['opened']} (failed {stats.get('failed', 0)}, open at the end {stats.get('held', 0)}); server {' '.join(x.split()[0]+x.split()[1] for x in rss)} kB")
print("  each (ms):", " ".join(f"{r[1]*1000:.0f}" + ("" if r[0] else "!") for r in results))
for r in results:
    if not r[0]:
        print("  lost:", r)
