#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""devtools/check-layers.py catches each kind of wrong edge, and only those.

On a small meson project made here (lib/a, lib/b, lib/sdk, drivers/common/c,
drivers/rdma/x, drivers/rdma/y, apps/common, apps/tool, examples/ex, tests/t, with the
edges the layering allows: lib/b on lib/a, drivers on lib/ and
drivers/common, apps on drivers, examples on apps, tests on everything, lib/sdk
compiling a driver's source) the check passes. Then, one variant at a time,
one wrong edge is added, as a meson dependency alone or as an #include line
alone, and the check must exit 1 with exactly one report naming that edge.

usage: test_check_layers.py <check-layers.py>
"""

import os
import shutil
import concurrent.futures
import subprocess
import sys
import tempfile

# folder -> the folders it depends on (meson dependency and #include of their header)
BASE = {
    'lib/a': [],
    'lib/b': ['lib/a'],
    'drivers/common/c': ['lib/a'],
    'drivers/rdma/x': ['drivers/common/c', 'lib/a'],
    'drivers/rdma/y': ['drivers/common/c'],
    'apps/common': ['lib/a'],
    'apps/tool': ['apps/common', 'drivers/rdma/x', 'drivers/rdma/y', 'lib/b'],
    'examples/ex': ['apps/common', 'drivers/rdma/x'],
    'tests/t': ['lib/a', 'drivers/rdma/y', 'apps/common', 'examples/ex'],
}

# name, meson-only edges, include-only edges {folder: [include text]}, the report expected
VARIANTS = [
    ('lib on apps (meson)', {'lib/b': ['apps/common']}, {},
     'lib/b -> apps/common: lib/ depends on lib/ and DPDK only (target b sees -I apps/common)'),
    ('lib on a driver (meson)', {'lib/b': ['drivers/rdma/x']}, {},
     'lib/b -> drivers/rdma/x: lib/ depends on lib/ and DPDK only (target b sees -I '
     'drivers/rdma/x)'),
    ('lib on drivers/common (meson)', {'lib/b': ['drivers/common/c']}, {},
     'lib/b -> drivers/common/c: lib/ depends'),
    ('a driver on apps (meson)', {'drivers/rdma/y': ['apps/common']}, {},
     'drivers/rdma/y -> apps/common: drivers/ depend on lib/ and drivers/common/ only'),
    ('apps on examples (meson)', {'apps/tool': ['examples/ex']}, {},
     'apps/tool -> examples/ex: apps/ depend on lib/, drivers/ and apps/ only'),
    ('apps on tests (meson)', {'apps/tool': ['tests/t']}, {},
     'apps/tool -> tests/t: apps/ depend'),
    ('a driver on another (meson)', {'drivers/rdma/y': ['drivers/rdma/x']}, {},
     'drivers/rdma/y -> drivers/rdma/x: a driver reaches another driver only through'),
    ('lib on tests (#include by path)', {}, {'lib/a': ['../../tests/t/t.h']},
     'lib/a -> tests/t: lib/ depends on lib/ and DPDK only (lib/a/a.c:2 includes tests/t/t.h)'),
    ('lib on a driver (#include by name)', {}, {'lib/b': ['x.h']},
     'lib/b -> drivers/rdma/x: lib/ depends on lib/ and DPDK only (lib/b/b.c:2 includes '
     'drivers/rdma/x/x.h)'),
    ('examples on tests (#include)', {}, {'examples/ex': ['t.h']},
     'examples/ex -> tests/t: examples/ depend'),
    ('the two drivers include each other', {},
     {'drivers/rdma/x': ['y.h'], 'drivers/rdma/y': ['x.h']},
     'include cycle between drivers/rdma/x and drivers/rdma/y (drivers/rdma/x/x.c:2 includes '
     'drivers/rdma/y/y.h; drivers/rdma/y/y.c:2 includes drivers/rdma/x/x.h)'),
]


def name(folder):
    return folder.split('/')[-1]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        fh.write(text)


def make(root, extra_deps, extra_incs):
    deps = {f: list(d) + extra_deps.get(f, []) for f, d in BASE.items()}
    order, seen = [], set()

    def visit(f):
        if f not in seen:
            seen.add(f)
            for d in deps[f]:
                visit(d)
            order.append(f)
    for f in BASE:
        visit(f)
    write(os.path.join(root, 'meson.build'),
          "project('layers_selftest', 'c')\n" +
          ''.join("subdir('%s')\n" % f for f in order) + "subdir('lib/sdk')\n")
    for f in BASE:
        n = name(f)
        # the extra includes first (line 2), then the allowed ones
        incs = ['#include "%s"\n' % i for i in extra_incs.get(f, [])]
        incs += ['#include "%s.h"\n' % name(d) for d in BASE[f]]
        write(os.path.join(root, f, n + '.h'), 'int %s_fn(void);\n' % n)
        write(os.path.join(root, f, n + '.c'),
              '#include "%s.h"\n' % n + ''.join(incs) + 'int %s_fn(void) { return 0; }\n' % n)
        write(os.path.join(root, f, 'meson.build'),
              "%s_lib = static_library('%s', '%s.c', dependencies: [%s])\n"
              "%s_dep = declare_dependency(link_with: %s_lib, include_directories: "
              "include_directories('.'))\n"
              % (n, n, n, ', '.join(name(d) + '_dep' for d in deps[f]), n, n))
    # the SDK's bundle compiles a driver's source: spared
    write(os.path.join(root, 'lib/sdk/meson.build'),
          "sdk_lib = static_library('sdk', '../../drivers/rdma/x/x.c', "
          "dependencies: [x_dep, a_dep, c_dep])\n")


def run(check, root):
    build = os.path.join(root, 'build')
    shutil.rmtree(build, ignore_errors=True)
    s = subprocess.run(['meson', 'setup', build, root], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if s.returncode != 0:
        print('not ok: meson setup failed:\n' + s.stdout)
        sys.exit(2)
    r = subprocess.run([sys.executable, check, '--build', build, root], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return r.returncode, r.stdout


def case(check, tmp, i, what, md, inc, want):
    """Build variant i (-1: the allowed edges only) and judge the checker's answer."""
    root = os.path.join(tmp, 'ok' if i < 0 else 'v%d' % i)
    make(root, md, inc)
    rc, out = run(check, root)
    if i < 0:
        if rc != 0:
            return False, 'not ok: the allowed edges are reported (exit %d):\n%s' % (rc, out)
        return True, 'ok: the allowed edges pass'
    reports = [l for l in out.splitlines() if l.startswith('layers: ')]
    if rc != 1 or len(reports) != 1 or want not in reports[0]:
        return False, ('not ok: %s: exit %d, want 1 and one report containing\n  %s\n'
                       '--- output:\n%s' % (what, rc, want, out))
    return True, 'ok: %s: %s' % (what, reports[0])


def main():
    check = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='check_layers.')
    cases = [(-1, 'allowed', {}, {}, '')] + [(i,) + v for i, v in enumerate(VARIANTS)]
    try:
        # each case is a meson setup of its own (most of the time): side by side
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(lambda c: case(check, tmp, *c), cases))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for _, line in results:
        print(line)
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
