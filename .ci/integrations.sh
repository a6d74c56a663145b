#!/usr/bin/env bash
# The CI integrations (issue 26 item 6), each exercised for real on this machine:
#   1. the container image, built from scratch by .ci/image.sh (what the release runs), unpacked
#      with umoci and run from its root filesystem: `patience version` and a check of a sample;
#   2. the GitHub Action: action.yml's required keys and run steps (no ${{ }} inside a script,
#      every script passing ShellCheck), the example workflow linted by actionlint against this
#      action.yml, and the action's run steps executed as the runner would (install, check);
#   3. the pre-commit hook: Debian's pre-commit runs .pre-commit-hooks.yaml at this clone's HEAD
#      on a sample repository: it fails on a known finding and passes once it is fixed;
#   4. the GitLab CI example: GitLab's required keys, and its script run as written;
#   5. the release's image hook in .goreleaser.yaml, rendered and run as goreleaser would.
# Installs what it needs (Debian's umoci, skopeo, pre-commit, shellcheck; actionlint from the Go
# module proxy); 1–2 minutes on 2 cores once they are installed, most of it building patience
# (the image's static binary, the action's build, the hook's go install). Ends with the line
# "integrations: N passed, 0 failed"; the first failure stops it, "FAIL what" on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

need=()
for c in umoci:umoci skopeo:skopeo pre-commit:pre-commit shellcheck:shellcheck git:git /usr/bin/python3:python3; do
  command -v "${c%%:*}" >/dev/null 2>&1 || need+=("${c##*:}")
done
# Debian's python3 (not whichever python3 comes first on PATH) has PyYAML: pre-commit needs it.
/usr/bin/python3 -c 'import yaml' 2>/dev/null || need+=(python3-yaml)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
python3() { /usr/bin/python3 "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }
head_rev=$(git rev-parse HEAD)
version="ci-$(git rev-parse --short=12 HEAD)"

# A copy of the sample with its timeout: line removed: the known finding PT001.
mkbad() { grep -v '^      timeout:' examples/ci/sample/patience.yaml >"$1"; }

# --- 1. Container image ------------------------------------------------------------------------
echo "== container image"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/patience-dev/patience/cmd.version=$version" -o "$tmp/patience" .
bash .ci/image.sh "$tmp/patience" "$tmp/patience.oci.tar" linux amd64 "$version"
# skopeo, a standard reader of OCI archives, sees one linux/amd64 image with its entrypoint.
skopeo inspect --config "oci-archive:$tmp/patience.oci.tar:$version" >"$tmp/image-config.json"
python3 - "$tmp/image-config.json" <<'EOF' || fail "image: config as skopeo reads it"
import json, sys
c = json.load(open(sys.argv[1]))
assert (c["os"], c["architecture"]) == ("linux", "amd64"), (c["os"], c["architecture"])
assert c["config"]["Entrypoint"] == ["/usr/local/bin/patience"], c["config"]["Entrypoint"]
assert len(c["rootfs"]["diff_ids"]) == 1, f'{len(c["rootfs"]["diff_ids"])} layers, want 1'
EOF
ok "image: skopeo reads the archive: linux/amd64, one layer, entrypoint patience"
mkdir "$tmp/layout" && tar -C "$tmp/layout" -xf "$tmp/patience.oci.tar"
umoci unpack --image "$tmp/layout:$version" "$tmp/bundle" >/dev/null
python3 - "$tmp/bundle/config.json" <<'EOF' || fail "image: runtime config"
import json, sys
c = json.load(open(sys.argv[1]))
args, cwd = c["process"]["args"], c["process"]["cwd"]
assert args == ["/usr/local/bin/patience"], f"entrypoint {args}"
assert cwd == "/src", f"working directory {cwd}"
EOF
ok "image: entrypoint /usr/local/bin/patience, working directory /src"
rootfs=$tmp/bundle/rootfs
# Only what the image holds: the binary, /src, /tmp and (when the host had one) the CA bundle.
extra=$(find "$rootfs" -mindepth 1 -printf '%P\n' | grep -Ev '^(usr|usr/local|usr/local/bin|usr/local/bin/patience|src|tmp|etc|etc/ssl|etc/ssl/certs|etc/ssl/certs/ca-certificates\.crt)$' || true)
[ -z "$extra" ] || fail "image: unexpected files: $extra"
ok "image: from scratch ($(du -sk "$rootfs" | cut -f1) KiB unpacked)"
# Run the entrypoint inside the root filesystem: chroot leaves the host's libraries behind, so
# a binary that is not static fails here. Where chroot is refused (no CAP_SYS_CHROOT), the
# binary runs from the rootfs and the ELF header says whether it is static.
mkdir -p "$rootfs/src/sample" && cp examples/ci/sample/patience.yaml "$rootfs/src/sample/"
mkbad "$rootfs/src/sample/bad.yaml"
if chroot "$rootfs" /usr/local/bin/patience version >/dev/null 2>&1; then
  run() { chroot "$rootfs" /usr/local/bin/patience "$@"; }
  src=/src # chroot starts in /: the sample is named by its path in the image
  how=chroot
else
  python3 - "$rootfs/usr/local/bin/patience" <<'EOF' || fail "image: the binary is not static"
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] == b"\x7fELF" and d[4] == 2, "not a 64-bit ELF"
phoff, = struct.unpack_from("<Q", d, 0x20)
phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
types = [struct.unpack_from("<I", d, phoff + i * phentsize)[0] for i in range(phnum)]
assert 3 not in types, "PT_INTERP present: dynamically linked"
EOF
  run() { "$rootfs/usr/local/bin/patience" "$@"; }
  src=$rootfs/src
  how="rootfs (chroot refused here)"
fi
out=$(run version)
case $out in *"$version"*) ;; *) fail "image: version says: $out" ;; esac
ok "image: patience version via $how: $out"
out=$(run check --color never "$src/sample/patience.yaml") || fail "image: check of the sample: $out"
case $out in *"check passed"*) ;; *) fail "image: check printed: $out" ;; esac
ok "image: check sample/patience.yaml passes"
set +e
out=$(run check --color never "$src/sample/bad.yaml")
rc=$?
set -e
[ "$rc" = 1 ] || fail "image: check of bad.yaml exited $rc, want 1: $out"
case $out in *PT001*) ;; *) fail "image: no PT001 in: $out" ;; esac
ok "image: check sample/bad.yaml exits 1 with PT001"

# --- 2. GitHub Action --------------------------------------------------------------------------
echo "== GitHub Action"
python3 - action.yml "$tmp/steps" <<'EOF' || fail "action.yml"
# action.yml's metadata: the keys GitHub requires, every ${{ inputs.X }} declared, every `uses:`
# pinned by a full commit SHA, and no expression inside a run: script (inputs reach scripts
# through env:, never pasted into the shell text). Each run: script is written out for shellcheck.
import os, re, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
for k in ("name", "description", "runs"):
    assert a.get(k), f"missing {k}"
r = a["runs"]
assert r.get("using") == "composite", "runs.using is not composite"
inputs = a.get("inputs") or {}
for n, i in inputs.items():
    assert "description" in i, f"input {n}: no description"
text = open(sys.argv[1]).read()
for n in re.findall(r"inputs\.([A-Za-z0-9_-]+)", text):
    assert n in inputs, f"inputs.{n} is not declared"
os.makedirs(sys.argv[2])
for i, s in enumerate(r["steps"]):
    if "uses" in s:
        assert re.search(r"@[0-9a-f]{40}$", s["uses"]), f"step {i}: {s['uses']} is not pinned by a commit SHA"
        continue
    assert s.get("shell") == "bash", f"step {i}: a run: step needs shell: bash"
    assert "${{" not in s["run"], f"step {i}: an expression inside the script"
    open(f"{sys.argv[2]}/{i}.sh", "w").write("#!/usr/bin/env bash\n" + s["run"])
EOF
shellcheck "$tmp"/steps/*.sh || fail "action.yml: shellcheck of its run: steps"
ok "action.yml: required keys, inputs declared, uses: pinned by SHA, run: steps pass shellcheck"

# actionlint checks workflows, and the inputs a workflow gives a local action against that
# action's metadata: the example is linted as a workflow of a copy of this repository whose
# `uses: patience-dev/patience@…` points at ./ (this action.yml).
proj=$tmp/proj
mkdir -p "$proj/.github/workflows"
git -C "$proj" init -q # actionlint finds the project by its .git
cp action.yml "$proj/"
sed -E 's#uses: patience-dev/patience@[^ ]+#uses: ./#' examples/ci/github-workflow.yml >"$proj/.github/workflows/patience.yml"
grep -q 'uses: \./' "$proj/.github/workflows/patience.yml" || fail "example workflow: no uses: patience-dev/patience@"
(cd "$proj" && go run "$ACTIONLINT" -color=false) || fail "actionlint: examples/ci/github-workflow.yml"
ok "actionlint: examples/ci/github-workflow.yml with this action.yml"
# The lint must be able to fail: an input the action does not declare is an error.
sed -i 's#fail-on: error#fail-onn: error#' "$proj/.github/workflows/patience.yml"
if (cd "$proj" && go run "$ACTIONLINT" -color=false >"$tmp/al.txt" 2>&1); then
  fail "actionlint accepted an undeclared input fail-onn"
fi
grep -q 'fail-onn' "$tmp/al.txt" || fail "actionlint failed without naming fail-onn: $(cat "$tmp/al.txt")"
ok "actionlint: rejects an undeclared input (fail-onn)"

# The action's run: steps executed as the runner would, with the example's inputs: the install
# step builds this clone (github.action_path), check runs in a workspace holding the sample.
runaction() { # WORKSPACE PATHS [ARGS]: runs the steps; prints the check step's outputs
  python3 - action.yml "$root" "$1" "$tmp/runner" "$2" "${3:---report junit=patience-junit.xml}" <<'EOF'
import os, re, subprocess, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
action_path, ws, rt = sys.argv[2], sys.argv[3], sys.argv[4]
given = {"paths": sys.argv[5], "args": sys.argv[6]}
inputs = {n: given.get(n, i.get("default", "")) for n, i in a["inputs"].items()}
ctx = {"github.action_path": action_path, "github.action_ref": "", "runner.temp": rt}
ctx.update({"inputs." + n: v for n, v in inputs.items()})
def expand(v):
    def one(m):
        k = m.group(1).strip()
        if k not in ctx:
            raise SystemExit(f"unknown expression {k}")
        return ctx[k]
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(v))
os.makedirs(rt, exist_ok=True)
path = os.environ["PATH"]
outputs = {}
for i, s in enumerate(a["runs"]["steps"]):
    if "uses" in s:
        continue  # setup-go (Go is here) and upload-sarif (GitHub's service)
    files = {k: f"{rt}/{k}.{i}" for k in ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
    for f in files.values():
        open(f, "w").close()
    env = dict(os.environ, PATH=path, **files, **{k: expand(v) for k, v in s.get("env", {}).items()})
    rc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s["run"]], cwd=ws, env=env, stdout=sys.stderr).returncode
    for line in open(files["GITHUB_PATH"]):
        path = line.strip() + os.pathsep + path
    step = dict(l.rstrip("\n").split("=", 1) for l in open(files["GITHUB_OUTPUT"]) if "=" in l)
    if s.get("id"):
        outputs.update(step)
        print(f"summary_bytes={os.path.getsize(files['GITHUB_STEP_SUMMARY'])}")
    if rc != 0:
        break
for k, v in outputs.items():
    print(f"{k}={v}")
EOF
}
ws=$tmp/ws
mkdir "$ws" && mkbad "$ws/patience.yaml"
outs=$(runaction "$ws" patience.yaml)
echo "$outs" | grep -qx 'exit-code=1' || fail "action on the known finding: outputs $outs"
echo "$outs" | grep -qx 'sarif=patience.sarif' || fail "action: no sarif output: $outs"
grep -q '"ruleId": "PT001"' "$ws/patience.sarif" || fail "action: PT001 not in the SARIF"
grep -q 'PT001' "$ws/patience-junit.xml" || fail "action: PT001 not in the JUnit report (args:)"
echo "$outs" | grep -q '^summary_bytes=[1-9]' || fail "action: nothing appended to the job summary"
ok "action: the known finding exits 1, SARIF and JUnit name PT001, the job summary is written"
cp examples/ci/sample/patience.yaml "$ws/patience.yaml"
outs=$(runaction "$ws" "")
echo "$outs" | grep -qx 'exit-code=0' || fail "action on the fixed file: outputs $outs"
ok "action: the fixed file exits 0 (paths empty: patience.yaml)"
# An invalid file: exit 2, and the SARIF offered for upload is this run's, which says the run
# failed and where (check writes it on exit 2 too), not the report the last run left.
printf 'dependencies:\n  - name: [\n' >"$ws/patience.yaml"
outs=$(runaction "$ws" "")
echo "$outs" | grep -qx 'exit-code=2' || fail "action on an invalid file: outputs $outs"
echo "$outs" | grep -qx 'sarif=patience.sarif' || fail "action on an invalid file: no sarif output: $outs"
grep -q '"executionSuccessful": false' "$ws/patience.sarif" || fail "action: the SARIF after exit 2 is not this run's"
ok "action: an invalid file exits 2; its SARIF (executionSuccessful false) replaces the last run's"
# A bad flag in args: check writes nothing, and the last run's SARIF is not offered for upload.
outs=$(runaction "$ws" "" --no-such-flag)
echo "$outs" | grep -qx 'exit-code=2' || fail "action with a bad flag: outputs $outs"
if echo "$outs" | grep -q '^sarif='; then fail "action with a bad flag: a stale SARIF offered for upload: $outs"; fi
ok "action: a bad flag exits 2 and offers no stale SARIF for upload"

# --- 3. pre-commit hook ------------------------------------------------------------------------
echo "== pre-commit hook"
repo=$tmp/precommit
mkdir "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email ci@example.invalid
git -C "$repo" config user.name ci
cat >"$repo/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $root
    rev: $head_rev
    hooks:
      - id: patience-check
EOF
mkbad "$repo/patience.yaml"
echo "not a policy" >"$repo/README.md"
git -C "$repo" add -A
export PRE_COMMIT_HOME=$tmp/pre-commit-cache
# pre-commit gives the hook a GOPATH of its own: the modules already downloaded are reused.
GOMODCACHE=$(go env GOMODCACHE)
export GOMODCACHE
set +e
out=$(cd "$repo" && pre-commit run --all-files --color never 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "pre-commit on the known finding exited $rc, want 1: $out"
case $out in *PT001*) ;; *) fail "pre-commit: no PT001 in: $out" ;; esac
ok "pre-commit: patience-check fails on the known finding (PT001)"
cp examples/ci/sample/patience.yaml "$repo/patience.yaml"
git -C "$repo" add -A
out=$(cd "$repo" && pre-commit run --all-files --color never 2>&1) || fail "pre-commit on the fixed file: $out"
ok "pre-commit: patience-check passes once fixed"
# A commit touching no file check reads: the hook is skipped, not failed.
git -C "$repo" commit -qm sample --no-verify
echo more >>"$repo/README.md"
git -C "$repo" add README.md
out=$(cd "$repo" && pre-commit run --color never 2>&1) || fail "pre-commit on README.md alone: $out"
case $out in *Skipped*) ;; *) fail "pre-commit on README.md alone did not skip: $out" ;; esac
ok "pre-commit: a commit of README.md alone skips the hook"

# --- 4. GitLab CI example ----------------------------------------------------------------------
echo "== GitLab CI example"
python3 - examples/ci/gitlab-ci.yml "$tmp/gitlab.sh" <<'EOF' || fail "examples/ci/gitlab-ci.yml"
# The keys GitLab requires of a job (script:, a stage from stages:) and the reports it reads;
# the script: lines are written out, the install pointed at this clone, to be run below.
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
stages = c.get("stages", ["build", "test", "deploy"])
jobs = {k: v for k, v in c.items() if isinstance(v, dict) and not k.startswith(".") and k not in ("default", "variables", "workflow", "include")}
assert jobs, "no job"
for n, j in jobs.items():
    assert isinstance(j.get("script"), list) and all(isinstance(s, str) for s in j["script"]), f"{n}: script: must be a list of strings"
    assert j.get("stage", "test") in stages, f"{n}: stage {j.get('stage')} not in stages:"
    reports = (j.get("artifacts") or {}).get("reports") or {}
    assert set(reports) <= {"junit", "codequality", "sast", "dotenv", "cobertura", "coverage_report", "metrics", "terraform"}, f"{n}: unknown report {set(reports)}"
job = jobs["patience-check"]
assert job["artifacts"]["reports"]["junit"] == "patience-junit.xml"
lines = [s for s in job["script"] if not s.startswith("go install")]
open(sys.argv[2], "w").write("set -e\n" + "\n".join(lines) + "\n")
EOF
ok "gitlab-ci.yml: stages, script and reports as GitLab requires"
gl=$tmp/gitlab
mkdir "$gl" && mkbad "$gl/patience.yaml"
if (cd "$gl" && PATH=$tmp:$PATH bash "$tmp/gitlab.sh" >/dev/null); then fail "gitlab script passed the known finding"; fi
grep -q 'PT001' "$gl/patience-junit.xml" || fail "gitlab: PT001 not in the JUnit report"
for f in patience.sarif patience.md; do [ -s "$gl/$f" ] || fail "gitlab: artifact $f not written"; done
ok "gitlab-ci.yml: its script fails on the known finding and writes the JUnit report and artifacts"

# --- 5. The release's image hook ---------------------------------------------------------------
echo "== .goreleaser.yaml image hook"
# goreleaser itself does not run here: its build post hook is rendered with the values goreleaser
# gives it ({{ .Path }}, {{ .Os }}, …) and run, once for linux (an image) and once for darwin (none).
rm -f dist/patience_0.0.0-ci_*.oci.tar
for os in linux darwin; do
  python3 - .goreleaser.yaml "$tmp/patience" "$os" >"$tmp/hook-$os.sh" <<'EOF' || fail ".goreleaser.yaml: the image hook"
import re, sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
(b,) = [b for b in c["builds"] if b["id"] == "patience"]
assert "CGO_ENABLED=0" in b["env"], "the image needs a static binary"
(h,) = [h["cmd"] for h in b["hooks"]["post"] if ".ci/image.sh" in h["cmd"]]
vals = {"Path": sys.argv[2], "Os": sys.argv[3], "Arch": "amd64", "Version": "0.0.0-ci", "ProjectName": c["project_name"]}
print(re.sub(r"\{\{\s*\.(\w+)\s*\}\}", lambda m: vals[m.group(1)], h))
for k in ("checksum", "release"):
    assert any(f["glob"] == "dist/*.oci.tar" for f in c[k]["extra_files"]), f"{k}: the image is not among extra_files"
EOF
  bash "$tmp/hook-$os.sh" >/dev/null
done
[ -s dist/patience_0.0.0-ci_linux_amd64.oci.tar ] || fail ".goreleaser.yaml: the hook wrote no linux image"
[ ! -e dist/patience_0.0.0-ci_darwin_amd64.oci.tar ] || fail ".goreleaser.yaml: an image for darwin"
rm -f dist/patience_0.0.0-ci_linux_amd64.oci.tar
rmdir dist 2>/dev/null || true
ok ".goreleaser.yaml: the build hook writes the linux image, none for darwin; both are checksummed and released"

echo "integrations: $pass passed, 0 failed (${SECONDS}s)"
