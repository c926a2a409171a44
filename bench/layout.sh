#!/usr/bin/env bash
# Issue 37 item 6, the package layout measured (complex_edit/README.md): bash bench/layout.sh [WORKDIR].
# K = today's tree (symlinks + package-dir), N = K cloned with core.symlinks=false,
# M = the code moved under complex_edit/ (no links).
set -u
W="${1:-/tmp/complex-edit-layout}"; mkdir -p "$W"
SRC="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
SITE=$SRC/.venv/lib/python3.11/site-packages
cd $W
rm -rf K N M v* cache* wheel*
git -C $SRC archive HEAD | (mkdir K && tar -x -C K)
git -c core.symlinks=false clone -q --branch "$(git -C "$SRC" branch --show-current)" $SRC N
cp -a K M
( cd M && rm complex_edit/server complex_edit/edit_tools complex_edit/prompts \
  && mv server edit_tools prompts complex_edit/ \
  && python3 - <<'PY'
import re
p='pyproject.toml'; s=open(p).read()
s=s.replace('"complex_edit.server" = "server"\n','').replace('"complex_edit.edit_tools" = "edit_tools"\n','').replace('"complex_edit.prompts" = "prompts"\n','')
open(p,'w').write(s)
PY
)
echo "links in K: $(find K -type l | wc -l); in N: $(find N -type l | wc -l) (complex_edit/server in N is a $(stat -c %F N/complex_edit/server)); in M: $(find M -type l | wc -l)"
for L in K N M; do
  echo "== $L"
  # grep -R: how often one definition is found
  echo "grep -R 'class ServerState' hits: $(grep -R 'class ServerState' $L --include=*.py | wc -l)  (grep -rR follows links)"
  echo "grep -r  'class ServerState' hits: $(grep -r 'class ServerState' $L --include=*.py | wc -l)"
  # mypy, cold cache
  ( cd $L && /usr/bin/time -f "mypy cold: %e s" $SRC/.venv/bin/mypy --cache-dir=$W/cache-$L > $W/mypy-$L.log 2>&1; tail -1 $W/mypy-$L.log )
  # pip install -e into a fresh venv whose dependencies come from the worktree's
  python3 -m venv $W/v$L
  echo "$SITE" > $W/v$L/lib/python3.11/site-packages/deps.pth
  /usr/bin/time -f "pip install -e: %e s" $W/v$L/bin/pip install -q --no-deps -e $W/$L > $W/pipe-$L.log 2>&1; tail -2 $W/pipe-$L.log
  ( cd /tmp && $W/v$L/bin/python -c "import complex_edit.server.cli.entry as m, complex_edit.edit_tools, complex_edit.prompts; print('editable import ok:', m.__file__)" 2>&1 | tail -1 )
  # pytest collection (unit tests) with that install
  ( cd $L && /usr/bin/time -f "pytest --collect-only tests/unit: %e s" $W/v$L/bin/python -m pytest --collect-only -q -p no:cacheprovider tests/unit > $W/collect-$L.log 2>&1; grep -E "tests? collected|error" $W/collect-$L.log | tail -2 )
  # a wheel
  /usr/bin/time -f "pip wheel: %e s" $W/v$L/bin/pip wheel -q --no-deps -w $W/wheel-$L $W/$L > $W/wheel-$L.log 2>&1; tail -1 $W/wheel-$L.log
  python3 - $W/wheel-$L <<'PY'
import sys, zipfile, glob
(w,) = glob.glob(sys.argv[1] + "/*.whl")
names = zipfile.ZipFile(w).namelist()
tops = sorted({n.split("/")[0] for n in names if ".dist-info" not in n})
print(f"wheel: {len(names)} files, top level {tops}, server modules {sum(n.startswith('complex_edit/server/') for n in names)}")
PY
done
