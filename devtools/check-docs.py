#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The documentation stays inside the repository and its links resolve.

Fails (exit 1), naming file:line, on:
  (a) a reference to a design document outside the repository: the folder
      beside it, or the old design file names (their content is in doc/guides);
  (b) a relative link in README.md, doc/**/*.md or examples/**/README.md
      whose file does not exist, or whose #anchor names no heading there
      (GitHub's slugs);
  (c) a path doc/guides/... named anywhere (source comments, scripts) that
      does not exist, or a "<doc> section N" citation whose doc has no
      heading numbered N.
Usage: devtools/check-docs.py [root]   (default: the repository holding it)
Unit suite `check_docs` runs it on the tree, `check_docs_selftest`
(tests/unit/docs) shows it catches each kind of breach.
"""
import os
import re
import sys

# Spelt in pieces so that this file does not match itself.
OUTSIDE = [
    re.compile(r'\.\./' + 'shared' + r'\b'),
    re.compile(r'\b' + 'shared/' + 'design' + r'\b'),
    re.compile(r'\bHW-' + 'INTERFACE' + r'\b'),
    re.compile(r'(?<![\w-])(?:' + 'STYLE|ARCHITECTURE|VM-RIG|TOOLS' + r')\.md\b'),
    re.compile(r'\bDPDK-' + 'NOTES' + r'\b'),
]
DOC_PATH = re.compile(r'(?<![\w/.-])(doc/guides/[\w./-]*[\w/])')
# "<doc>.md section 5.1", "<doc>.md sections 1 and 2", "<doc>.md, section 4, 5.3"
NUM = r'\d+(?:\.\d+)*'
SECTION = re.compile(r'^,? +sections? +(' + NUM + r'(?:(?:, +| and +| ?/ ?)' + NUM + r')*)')
LINK = re.compile(r'\]\(([^)\s]+)\)')
REFDEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s+(\S+)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')


def is_build_dir(path, names):
    return 'meson-private' in names or 'build.ninja' in names


def tree_files(root):
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs
                         if x != '.git' and not is_build_dir(os.path.join(d, x),
                                                               os.listdir(os.path.join(d, x))))
        for n in sorted(names):
            yield os.path.join(d, n)


def read_text(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:
        return None
    if b'\0' in data:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def slug(text):
    """GitHub's anchor for a heading: its text, lower case, punctuation gone."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # a link: its text
    text = text.lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def md_lines(text):
    """(line number, line) of a markdown text outside fenced code blocks."""
    fence = None
    for no, line in enumerate(text.split('\n'), 1):
        m = re.match(r'^\s*(```+|~~~+)', line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield no, line


class Docs:
    def __init__(self):
        self.cache = {}

    def headings(self, path):
        """The anchors and the section numbers of a markdown file."""
        if path not in self.cache:
            anchors, numbers, seen = set(), set(), {}
            for _, line in md_lines(read_text(path) or ''):
                m = HEADING.match(line)
                if not m:
                    continue
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                anchors.add(s if n == 0 else '%s-%d' % (s, n))
                num = re.match(r'(\d+(?:\.\d+)*)\.?\s', m.group(2))
                if num:
                    numbers.add(num.group(1))
            self.cache[path] = (anchors, numbers)
        return self.cache[path]


def check_links(root, path, text, docs, out):
    rel = os.path.relpath(path, root)
    for no, line in md_lines(text):
        bare = CODE_SPAN.sub('', line)
        targets = LINK.findall(bare)
        m = REFDEF.match(bare)
        if m:
            targets.append(m.group(1))
        for t in targets:
            if re.match(r'^[a-z][a-z0-9+.-]*:', t):  # http:, mailto:, ...
                continue
            t = t.strip('<>')
            file_part, _, anchor = t.partition('#')
            target = path if not file_part else \
                os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(target):
                out.append('%s:%d: link to %s: no such file' % (rel, no, file_part))
                continue
            if anchor and target.endswith('.md') and \
                    anchor not in docs.headings(target)[0]:
                out.append('%s:%d: link to %s#%s: no such heading' % (rel, no, file_part, anchor))


def check_doc_paths(root, path, text, docs, out):
    rel = os.path.relpath(path, root)
    for no, line in enumerate(text.split('\n'), 1):
        for m in DOC_PATH.finditer(line):
            p = m.group(1).rstrip('.')
            target = os.path.join(root, p)
            if not os.path.exists(target):
                out.append('%s:%d: %s does not exist' % (rel, no, p))
                continue
            s = SECTION.match(line[m.end():])
            if s and p.endswith('.md'):
                have = docs.headings(target)[1]
                for n in re.findall(NUM, s.group(1)):
                    if n not in have:
                        out.append('%s:%d: %s has no section %s' % (rel, no, p, n))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    docs = Docs()
    out = []
    nfiles = 0
    for path in tree_files(root):
        text = read_text(path)
        if text is None:
            continue
        nfiles += 1
        rel = os.path.relpath(path, root)
        for no, line in enumerate(text.split('\n'), 1):
            for pat in OUTSIDE:
                m = pat.search(line)
                if m:
                    out.append('%s:%d: "%s": the design is in doc/guides, cite it there'
                               % (rel, no, m.group(0)))
        parts = rel.split(os.sep)
        if rel == 'README.md' or (parts[0] == 'doc' and rel.endswith('.md')) or \
                (parts[0] == 'examples' and parts[-1] == 'README.md'):
            check_links(root, path, text, docs, out)
        check_doc_paths(root, path, text, docs, out)
    for line in out:
        print(line)
    if out:
        print('check-docs: %d problem(s)' % len(out))
        return 1
    print('check-docs: %d files, no reference outside the repository, every doc link resolves'
          % nfiles)
    return 0


if __name__ == '__main__':
    sys.exit(main())
