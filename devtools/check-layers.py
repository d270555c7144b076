#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that ORDK's layers point one way.

    lib/       on lib/ and DPDK only
    drivers/   on lib/ and drivers/common/ (a driver never reaches another driver)
    apps/      on lib/, drivers/ and apps/
    examples/  on lib/, drivers/, apps/ and examples/
    tests/     on anything

Two sources of edges:
  - #include lines of every C file under lib/, drivers/, apps/ and examples/,
    resolved against the tree (the including file's folder first, then any
    file of that name under the five folders); headers found nowhere (DPDK's,
    the system's, generated ones) are not ORDK's and are skipped;
  - with --build, the build's introspection (meson-info/intro-targets.json,
    what `meson introspect --targets` prints): each compiled target's folder
    (where it is defined, or where its sources are for the folders the root
    meson.build builds) against its sources and its -I directories, i.e. the
    include paths of every dependency it was given.

lib/sdk is the one exception: libordk is the SDK's bundle of every folder's
objects, drivers included (as an executable links them). Everything else in
lib/ that needs drivers gets them the way an executable does, by linking the
build's driver table (ordk_dep) into a product (lib/ibverbs' libibverbs.so)
whose own code is a lib/ library.

Prints one line per wrong edge, naming both ends and the evidence, and exits 1;
exits 0 when every edge points the right way.

usage: check-layers.py [--build BUILDDIR] [SRCDIR]
"""

import argparse
import json
import os
import re
import sys

LAYERS = ('lib', 'drivers', 'apps', 'examples', 'tests')
ALLOWED = {
    'lib': {'lib'},
    'drivers': {'lib', 'drivers'},
    'apps': {'lib', 'drivers', 'apps'},
    'examples': {'lib', 'drivers', 'apps', 'examples'},
    'tests': set(LAYERS),
}
RULE = {
    'lib': 'lib/ depends on lib/ and DPDK only',
    'drivers': 'drivers/ depend on lib/ and drivers/common/ only',
    'apps': 'apps/ depend on lib/, drivers/ and apps/ only',
    'examples': 'examples/ depend on lib/, drivers/, apps/ and examples/ only',
}
# folders that bundle the layers into one installable library
BUNDLES = {'lib/sdk': 'libordk, the SDK, packs every folder'}
C_FILES = ('.c', '.h')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def unit_of_dir(rel):
    """As unit(), for a directory (its last component is a folder, not a file)."""
    parts = [p for p in rel.replace(os.sep, '/').split('/') if p not in ('', '.')]
    if not parts or parts[0] not in LAYERS:
        return None
    n = 3 if parts[0] == 'drivers' else 2
    return '/'.join(parts[:n])


def unit_of_file(rel):
    return unit_of_dir(os.path.dirname(rel))


def is_driver(u):
    """A driver proper (drivers/<class>/<name>), not drivers/common/<name>."""
    p = u.split('/')
    return p[0] == 'drivers' and len(p) == 3 and p[1] != 'common'


def allowed(src, dst):
    """May unit @src depend on unit @dst (None: outside the five folders)?"""
    if dst is None or src == dst:
        return True
    if src in BUNDLES:
        return dst.split('/')[0] in ('lib', 'drivers')
    if is_driver(src) and is_driver(dst):
        return False
    return dst.split('/')[0] in ALLOWED[src.split('/')[0]]


class Edges:
    def __init__(self):
        self.bad = {}  # (from, to) -> first evidence
        self.driver = {}  # (from driver, to driver) -> first evidence

    def add(self, src, dst, why):
        if src is None or dst is None or src == dst:
            return
        if allowed(src, dst):
            return
        if is_driver(src) and is_driver(dst):
            self.driver.setdefault((src, dst), why)
        else:
            self.bad.setdefault((src, dst), why)

    def report(self):
        lines = []
        for (s, d), why in sorted(self.bad.items()):
            rule = ('%s (%s) bundles lib/ and drivers/ only' % (s, BUNDLES[s]) if s in BUNDLES
                    else RULE[s.split('/')[0]])
            lines.append('layers: %s -> %s: %s (%s)' % (s, d, rule, why))
        done = set()
        for (s, d), why in sorted(self.driver.items()):
            if (s, d) in done:
                continue
            back = self.driver.get((d, s))
            if back is not None:
                done.add((d, s))
                lines.append('layers: include cycle between %s and %s (%s; %s)' % (s, d, why, back))
            else:
                lines.append('layers: %s -> %s: a driver reaches another driver only through '
                             'drivers/common and the build\'s tables (%s)' % (s, d, why))
        return lines


def tree_files(src):
    """Every C file under the five folders, as paths relative to src."""
    out = []
    for top in LAYERS:
        base = os.path.join(src, top)
        for d, dirs, files in os.walk(base):
            dirs[:] = [x for x in dirs if not x.startswith('.')]
            for f in files:
                if f.endswith(C_FILES):
                    out.append(os.path.relpath(os.path.join(d, f), src))
    return sorted(out)


def check_includes(src, edges):
    files = tree_files(src)
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    for f in files:
        home = unit_of_file(f)
        if home is None or home.split('/')[0] == 'tests':
            continue
        with open(os.path.join(src, f), errors='replace') as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if m is None:
                    continue
                kind, name = m.groups()
                target = None
                if kind == '"':
                    local = os.path.normpath(os.path.join(os.path.dirname(f), name))
                    if os.path.isfile(os.path.join(src, local)):
                        target = local
                if target is None:
                    cands = [c for c in by_name.get(os.path.basename(name), [])
                             if c.replace(os.sep, '/').endswith('/' + name)]
                    if not cands:
                        continue
                    # the same name in several folders: one it may see will do
                    fits = [c for c in cands if allowed(home, unit_of_file(c))]
                    target = fits[0] if fits else cands[0]
                if os.path.isabs(target) or target.startswith('..'):
                    continue
                edges.add(home, unit_of_file(target), '%s:%d includes %s' % (f, n, target))


def under(path, root):
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root + os.sep)


def check_meson(src, build, edges):
    intro = os.path.join(build, 'meson-info', 'intro-targets.json')
    try:
        with open(intro) as fh:
            targets = json.load(fh)
    except OSError as e:
        print('check-layers: %s: %s (configure the build first)' % (intro, e.strerror))
        sys.exit(2)
    src_r, build_r = os.path.realpath(src), os.path.realpath(build)
    for t in targets:
        defined = os.path.relpath(os.path.dirname(os.path.realpath(t['defined_in'])), src_r)
        own = []
        for ts in t.get('target_sources', []):
            own += [s for s in ts.get('sources', []) if under(s, src_r) and not under(s, build_r)]
        if defined not in ('.', ''):
            home = unit_of_dir(defined)
        else:  # a folder the root meson.build builds: where its sources are
            homes = sorted({unit_of_file(os.path.relpath(os.path.realpath(s), src_r))
                            for s in own} - {None})
            home = homes[0] if homes else None
        if home is None or home.split('/')[0] == 'tests':
            continue
        what = 'target %s' % t['name']
        for s in own:
            rel = os.path.relpath(os.path.realpath(s), src_r)
            edges.add(home, unit_of_file(rel), '%s compiles %s' % (what, rel))
        for ts in t.get('target_sources', []):
            params = ts.get('parameters', [])
            for i, p in enumerate(params):
                if p in ('-I', '-isystem') and i + 1 < len(params):
                    d = params[i + 1]
                elif p.startswith('-I'):
                    d = p[2:]
                elif p.startswith('-isystem'):
                    d = p[len('-isystem'):]
                else:
                    continue
                if not d:
                    continue
                d = os.path.realpath(d)
                if under(d, build_r):
                    rel = os.path.relpath(d, build_r)
                    if rel.endswith('.p'):  # the target's private directory
                        continue
                elif under(d, src_r):
                    rel = os.path.relpath(d, src_r)
                else:
                    continue
                edges.add(home, unit_of_dir(rel), '%s sees -I %s' % (what, rel))


def main():
    ap = argparse.ArgumentParser(description='Check that ORDK\'s layers point one way.')
    ap.add_argument('--build', help='a configured build directory (meson introspection)')
    ap.add_argument('src', nargs='?',
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    a = ap.parse_args()
    edges = Edges()
    check_includes(a.src, edges)
    if a.build:
        check_meson(a.src, a.build, edges)
    lines = edges.report()
    for line in lines:
        print(line)
    if lines:
        print('check-layers: %d wrong edge(s); see doc/guides/prog_guide/architecture.md, Layers'
              % len(lines))
        return 1
    print('check-layers: every edge points the right way')
    return 0


if __name__ == '__main__':
    sys.exit(main())
