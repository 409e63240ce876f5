"""A venv-like source tree for bench/yeet and bench/scale.

Usage: openssl enc -aes-128-ctr ... -in /dev/zero | python3 bench/make_tree.py SRC SIZE_GIB SEED
File contents come from stdin (an AES-CTR keystream: deterministic and incompressible). Sizes and
names come from Python's random with SEED: ~25 % of the bytes in small files (1-64 KiB, .py/.pyc in
package directories), ~35 % in medium ones (1-10 MiB, .so), the rest in large files (up to 128 MiB
each); plus an empty __init__.py per package and one symbolic link. Prints the tree's make-up as a
Markdown table and writes its byte count to total_bytes beside SRC.
"""
import os, random, statistics, sys

src, total, seed = sys.argv[1], int(float(sys.argv[2]) * 2**30), int(sys.argv[3])
rng = random.Random(seed)
stream = sys.stdin.buffer
KiB, MiB = 1024, 1024 * 1024
files = []  # (class, path, size)

def pkg_dir(i):
    return "lib/python3.11/site-packages/pkg%03d" % i

small_budget, medium_budget = total // 4, total * 35 // 100
used, i = 0, 0
while used < small_budget:
    size = min(rng.randint(1 * KiB, 64 * KiB), small_budget - used)
    pkg, k = divmod(i, 40)
    path = "%s/mod%02d.py" % (pkg_dir(pkg), k // 2) if k % 2 == 0 else \
           "%s/__pycache__/mod%02d.cpython-311.pyc" % (pkg_dir(pkg), k // 2)
    files.append(("small (1-64 KiB)", path, size))
    used += size
    i += 1
npkg = i // 40 + 1
used = 0
while used < medium_budget:
    size = min(rng.randint(1 * MiB, 10 * MiB), medium_budget - used)
    files.append(("medium (1-10 MiB)", "%s/_ext%d.cpython-311-x86_64-linux-gnu.so" % (pkg_dir(rng.randrange(npkg)), len(files)), size))
    used += size
rest = total - sum(f[2] for f in files)
nlarge = max(1, rest // (128 * MiB))
for k in range(nlarge):
    size = rest // nlarge + (rest % nlarge if k == nlarge - 1 else 0)
    files.append(("large (100+ MiB)", "lib/libbig%d.so" % k, size))

for cls, path, size in files:
    full = os.path.join(src, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as out:
        left = size
        while left:
            block = stream.read(min(left, 8 * MiB))
            if not block:
                sys.exit("keystream ended early")
            out.write(block)
            left -= len(block)
for p in range(npkg):  # empty files, as packages have
    os.makedirs(os.path.join(src, pkg_dir(p)), exist_ok=True)
    open(os.path.join(src, pkg_dir(p), "__init__.py"), "wb").close()
os.symlink("lib", os.path.join(src, "lib64"))

ndirs = sum(1 for _ in os.walk(src))  # the top directory included; the link is not followed
print("| class | files | bytes (MiB) | share | smallest | median | largest |")
print("|---|---:|---:|---:|---:|---:|---:|")
def human(n):
    return "%.1f MiB" % (n / MiB) if n >= MiB else "%.1f KiB" % (n / KiB)
for cls in ("small (1-64 KiB)", "medium (1-10 MiB)", "large (100+ MiB)"):
    sizes = [f[2] for f in files if f[0] == cls]
    print("| %s | %d | %.1f | %.0f %% | %s | %s | %s |" % (cls, len(sizes), sum(sizes) / MiB, 100 * sum(sizes) / total,
          human(min(sizes)), human(statistics.median(sizes)), human(max(sizes))))
print("| empty `__init__.py` | %d | 0 | 0 %% | - | - | - |" % npkg)
print("| total | %d files, %d directories, 1 symlink | %.1f | 100 %% | | | |" % (len(files) + npkg, ndirs, total / MiB))
with open(os.path.join(os.path.dirname(src), "total_bytes"), "w") as f:
    f.write("%d\n" % total)
