#!/usr/bin/env python3
"""Every shell example a user can read: README.md and docs/*.md (```sh blocks,
and the command lines of unlabelled ``` blocks), each subcommand's --help
Examples section, and the EXAMPLES of the man pages (docs/man/*.[1-8],
tpmtrace.1.in). Prints JSON: a list of blocks {"source", "commands"}, each
command one shell command (continuation lines and quoted newlines joined).

usage: doc_examples.py SRC TPMTRACE
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys

SRC, TPMTRACE = sys.argv[1], sys.argv[2]
blocks = []


def complete(text):
    """Whether text is a whole shell command (no open quote, no trailing \\)."""
    if text.rstrip().endswith('\\'):
        return False
    try:
        shlex.split(text, comments=True)
        return True
    except ValueError:
        return False


def commands(lines):
    out, cur = [], ''
    for line in lines:
        if not cur and (not line.strip() or line.lstrip().startswith('#')):
            continue
        cur = cur + '\n' + line if cur else line
        if complete(cur):
            out.append(cur.strip())
            cur = ''
    if cur:
        out.append(cur.strip())
    return out


def add(source, lines):
    cmds = commands(lines)
    if cmds:
        blocks.append({'source': source, 'commands': cmds})


# A command line in an unlabelled block (not output such as
# "tpmtrace record: trace 1: ...", not a profile or SQL text).
CMD_LINE = re.compile(r'^(sudo )?(tpmtrace|build/bin/tpmtrace|tpm-cuse-proxy|build/bin/tpm-cuse-proxy)'
                      r' (?![A-Za-z-]+:)')


def command_lines(lines):
    keep = []
    for line in lines:
        # a continuation belongs to the command line before it
        if CMD_LINE.match(line) or (keep and keep[-1].rstrip().endswith('\\')):
            keep.append(line)
    return keep

for path in [os.path.join(SRC, 'README.md')] + sorted(glob.glob(os.path.join(SRC, 'docs', '*.md'))):
    rel = os.path.relpath(path, SRC)
    text = open(path).read()
    for m in re.finditer(r'^```([^\n]*)\n(.*?)^```', text, re.S | re.M):
        tag, body = m.group(1).strip(), m.group(2)
        line_no = text[:m.start()].count('\n') + 1
        source = '%s:%d' % (rel, line_no)
        if tag.startswith('sh quickstart'):
            blocks.append({'source': source, 'quickstart': tag, 'commands': commands(body.splitlines())})
        elif tag.startswith('sh record-boot'):
            # Installs into the system and reads a machine's boot: run word
            # for word in a Debian image by the VM tests instead.
            blocks.append({'source': source, 'commands': commands(body.splitlines()),
                           'elsewhere': 'run word for word in a Debian image by '
                                        'tests/vm/test_vm_boot_luks_*.sh'})
        elif tag.startswith('sh record-kernel-boot'):
            # Installs into the system and rebuilds its initramfs: the files
            # and names are checked, and the boot run in a guest, elsewhere.
            blocks.append({'source': source, 'commands': commands(body.splitlines()),
                           'elsewhere': 'installs into the system; its names checked by '
                                        'tests/integration/test_boot_glue_kernel_files.sh, '
                                        'the boot run by tests/vm/test_vm_kernel_bootglue.sh'})
        elif tag.startswith('sh fleet'):
            # Needs a PostgreSQL server: the fleet test runs these against
            # its own (the set-up's apt-get and sudo: the system's).
            blocks.append({'source': source, 'commands': commands(body.splitlines()),
                           'elsewhere': 'installs the system PostgreSQL (apt-get, sudo)'
                                        if tag == 'sh fleet-setup' else
                                        'run against a test server by '
                                        'tests/integration/test_fleet_push_200_hosts.sh'})
        elif tag == 'sh':
            add(source, body.splitlines())
        elif tag == '':
            add(source, command_lines(body.splitlines()))
    # Indented (4 spaces) code blocks outside the fences.
    outside = re.sub(r'^```.*?^```', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S | re.M)
    run, start = [], 0
    for no, line in enumerate(outside.splitlines() + [''], 1):
        if line.startswith('    '):
            if not run:
                start = no
            run.append(line[4:])
        elif run:
            add('%s:%d' % (rel, start), command_lines(run))
            run = []

help_out = subprocess.run([TPMTRACE, '--help'], capture_output=True, text=True).stdout
subs = []
on = False
for line in help_out.splitlines():
    if line.startswith('Subcommands:'):
        on = True
        continue
    if on and re.match(r'^  [a-z]', line):
        subs.append(line.split()[0])
    elif on and not line.strip():
        on = False
for sub in subs:
    h = subprocess.run([TPMTRACE, sub, '--help'], capture_output=True, text=True).stdout
    ex = h.split('\nExamples:\n', 1)
    if len(ex) == 2:
        add('tpmtrace %s --help' % sub, [l[2:] if l.startswith('  ') else l for l in ex[1].splitlines()])


def unroff(s):
    return s.replace('\\-', '-').replace('\\e', '\\').replace('\\&', '')


for path in sorted(glob.glob(os.path.join(SRC, 'docs', 'man', '*.[1-8]')) +
                   glob.glob(os.path.join(SRC, 'docs', 'man', '*.in'))):
    rel = os.path.relpath(path, SRC)
    text = open(path).read()
    m = re.search(r'^\.SH EXAMPLES\n(.*?)^\.SH ', text, re.S | re.M)
    if not m:
        continue
    for nf in re.finditer(r'^\.nf\n(.*?)^\.fi', m.group(1), re.S | re.M):
        lines = [unroff(l) for l in nf.group(1).splitlines() if not l.startswith('.')]
        add('%s EXAMPLES' % rel, lines)

json.dump(blocks, sys.stdout, indent=1)
